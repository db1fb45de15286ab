"""What a post becomes on TikTok's wire: the init call's endpoint and body, and the chunks a
FILE_UPLOAD video goes up in. The TikTok client (`accounts.platforms.tiktok`) sends them.

- A post whose media are all images is a photo post: `content/init/` with `media_type PHOTO`,
  pulled from `media.pull_url()` (the only source TikTok offers for photos). The text is the
  photo `description`, the `title` setting its title.
- Otherwise it is one video: `video/init/` (DIRECT_POST, the text as caption in
  `post_info.title`) or `inbox/video/init/` (MEDIA_UPLOAD: `source_info` only, the creator
  finishes the post in the app).
- What the creator switched off in `creator_info/query` stays off (`disable_*`), whatever the
  post asks; a post without `privacy_level` goes out as `SELF_ONLY`.
- Chunks follow TikTok's media transfer guide: files under 5 MB in one piece, else
  `total_chunk_count = floor(size / chunk_size)` with the rest in the last chunk.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accounts.platforms.base import Media, Post

MB = 1024 * 1024
MIN_CHUNK, MAX_CHUNK, MAX_CHUNKS = 5 * MB, 64 * MB, 1000
POST_MODES = ("DIRECT_POST", "MEDIA_UPLOAD")
BRAND_SETTINGS = ("brand_content_toggle", "brand_organic_toggle")


def mode(post: Post) -> str:
    chosen = post.settings.get("tiktok_post_mode", "DIRECT_POST")
    return chosen if chosen in POST_MODES else "DIRECT_POST"


def privacy(post: Post) -> str:
    return str(post.settings.get("privacy_level") or "SELF_ONLY")


def is_photo(post: Post) -> bool:
    return bool(post.media) and not any(m.is_video for m in post.media)


@dataclass
class Plan:
    """One publish: where the init goes, its body, and what check() will need."""

    kind: str  # "video" or "photo"
    endpoint: str
    body: dict[str, Any]
    username: str
    media: Sequence[Media] = ()
    file_upload: bool = False
    upload_url: str = ""  # from the init answer (FILE_UPLOAD)
    ref: dict[str, str] = field(default_factory=dict)


def plan_for(post: Post, creator: Mapping[str, Any], *, video_source: str, chunk_bytes: int) -> Plan:
    """The init call for `post`; `video_source` is FILE_UPLOAD or PULL_FROM_URL."""
    username = str(creator.get("creator_username") or "")
    if is_photo(post):
        return Plan("photo", "/post/publish/content/init/", _photo_body(post, creator), username)
    inbox = mode(post) == "MEDIA_UPLOAD"
    endpoint = f"/post/publish/{'inbox/' if inbox else ''}video/init/"
    body: dict[str, Any] = {"source_info": _video_source(post.media[0], video_source, chunk_bytes)}
    if not inbox:
        body["post_info"] = _video_info(post, creator)
    return Plan("video", endpoint, body, username, post.media, video_source == "FILE_UPLOAD")


def _video_source(media: Media, source: str, chunk_bytes: int) -> dict[str, Any]:
    if source == "PULL_FROM_URL":
        return {"source": "PULL_FROM_URL", "video_url": media.pull_url()}
    chunk, count = chunking(media.size_bytes, chunk_bytes)
    return {"source": "FILE_UPLOAD", "video_size": media.size_bytes, "chunk_size": chunk, "total_chunk_count": count}


def _video_info(post: Post, creator: Mapping[str, Any]) -> dict[str, Any]:
    info: dict[str, Any] = {"title": post.text, "privacy_level": privacy(post)}
    info.update(_interactions(post, creator, ("comment", "duet", "stitch")))
    return info | _brand(post)


def _photo_body(post: Post, creator: Mapping[str, Any]) -> dict[str, Any]:
    info: dict[str, Any] = {"description": post.text}
    if isinstance(post.settings.get("title"), str):
        info["title"] = post.settings["title"]
    if mode(post) == "DIRECT_POST":
        info["privacy_level"] = privacy(post)
    info.update(_interactions(post, creator, ("comment",)))
    if isinstance(post.settings.get("auto_add_music"), bool):
        info["auto_add_music"] = post.settings["auto_add_music"]
    source = {"source": "PULL_FROM_URL", "photo_images": [m.pull_url() for m in post.media], "photo_cover_index": 0}
    return {"post_info": info | _brand(post), "source_info": source, "post_mode": mode(post), "media_type": "PHOTO"}


def _interactions(post: Post, creator: Mapping[str, Any], names: Sequence[str]) -> dict[str, bool]:
    """disable_* flags: off unless the creator switched them off or the post asks so."""
    flags = {}
    for name in names:
        key = "allows_comments" if name == "comment" else f"allows_{name}"
        allowed = post.settings.get(key, True) is not False
        flags[f"disable_{name}"] = bool(creator.get(f"{name}_disabled")) or not allowed
    return flags


def _brand(post: Post) -> dict[str, bool]:
    return {key: post.settings[key] for key in BRAND_SETTINGS if isinstance(post.settings.get(key), bool)}


def chunking(size: int, chunk_bytes: int) -> tuple[int, int]:
    """(chunk_size, total_chunk_count) as TikTok's media transfer guide asks."""
    if size < MIN_CHUNK:
        return size, 1
    chunk = min(max(chunk_bytes, MIN_CHUNK), MAX_CHUNK)
    chunk = max(chunk, -(-size // MAX_CHUNKS))
    return chunk, max(1, size // chunk)


def file_chunks(plan: Plan) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, bytes, is_last) per chunk of the plan's video; the last takes the rest of the file."""
    source = plan.body["source_info"]
    chunk, count = source["chunk_size"], source["total_chunk_count"]
    with plan.media[0].open() as stream:
        for index in range(count - 1):
            yield index * chunk, stream.read(chunk), False
        yield (count - 1) * chunk, stream.read(), True
