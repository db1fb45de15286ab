from enum import StrEnum


class ContentTypeEnum(StrEnum):
    IMAGEGIF = "image/gif"
    IMAGEJPEG = "image/jpeg"
    IMAGEPNG = "image/png"
    IMAGEWEBP = "image/webp"
    VIDEOMP4 = "video/mp4"
    VIDEOQUICKTIME = "video/quicktime"

    def __str__(self) -> str:
        return str(self.value)
