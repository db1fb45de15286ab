"""Make a JPEG rendition of an image: the one program `media.fitting` runs Pillow in, as a
bounded subprocess (`media.processing.run`: address space, CPU seconds, wall clock), so that a
decoder bomb costs that child its memory, never a worker's.

    python -I media/fit_image.py SOURCE DESTINATION MAX_PIXELS [WIDTHxHEIGHT]

It imports nothing of the service (no Django): only Pillow. The header is read first, and an
image of more than MAX_PIXELS is refused before any pixel is decoded. On success it prints the
rendition's {"width", "height"} as JSON; otherwise it exits with one of the statuses below.
"""

from __future__ import annotations

import json
import sys

from PIL import Image

JPEG_QUALITY = 85
UNREADABLE, OUT_OF_MEMORY, TOO_MANY_PIXELS = 2, 3, 4
ORIENTATION = 0x0112
# What each EXIF orientation asks to show the picture upright (as ImageOps.exif_transpose).
_TURNS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_SWAPS = {Image.Transpose.TRANSPOSE, Image.Transpose.ROTATE_270, Image.Transpose.TRANSVERSE, Image.Transpose.ROTATE_90}


def fit(source: str, destination: str, max_pixels: int, box: tuple[int, int] | None) -> tuple[int, int] | int:
    """(width, height) of the JPEG written to `destination`, or the exit status of a refusal."""
    Image.MAX_IMAGE_PIXELS = max_pixels
    with Image.open(source) as image:  # the header only: nothing decoded yet
        if image.width * image.height > max_pixels:
            return TOO_MANY_PIXELS
        image.seek(0)  # the first frame of an animation
        turn = _TURNS.get(image.getexif().get(ORIENTATION, 1))
        picture = image.convert("RGBA") if image.mode == "P" else image  # a palette resamples badly
        if box:
            if turn in _SWAPS:
                box = (box[1], box[0])  # the box is for the picture as shown, upright
            picture.draft("RGB", box)  # a JPEG source decodes at a reduced scale
            picture.thumbnail(box, Image.Resampling.LANCZOS)  # before any copy, so the copies are small
        if turn is not None:
            picture = picture.transpose(turn)
        picture = _flattened(picture)
        picture.save(destination, "JPEG", quality=JPEG_QUALITY, optimize=True)
        return picture.width, picture.height


def _flattened(picture: Image.Image) -> Image.Image:
    """RGB, transparent areas on white (a JPEG has no alpha)."""
    if picture.mode not in ("RGBA", "LA"):
        return picture.convert("RGB") if picture.mode != "RGB" else picture
    rgba = picture.convert("RGBA") if picture.mode == "LA" else picture
    flat = Image.new("RGB", rgba.size, (255, 255, 255))
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return flat


def _box(text: str) -> tuple[int, int]:
    width, height = text.lower().split("x")
    return int(width), int(height)


def main(argv: list[str]) -> int:
    source, destination, max_pixels = argv[0], argv[1], int(argv[2])
    box = _box(argv[3]) if len(argv) > 3 else None
    try:
        made = fit(source, destination, max_pixels, box)
    except MemoryError:
        print("out of memory", file=sys.stderr)
        return OUT_OF_MEMORY
    except Image.DecompressionBombError as exc:
        print(exc, file=sys.stderr)
        return TOO_MANY_PIXELS
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow's words for a file it cannot decode
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return UNREADABLE
    if isinstance(made, int):
        print("over the pixel limit", file=sys.stderr)
        return made
    print(json.dumps({"width": made[0], "height": made[1]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
