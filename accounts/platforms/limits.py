"""What each platform accepts in one post, served as an account's `capabilities`.

Numbers come from each platform's public documentation and published API descriptions (the
source is named beside each entry) and from the interface specification (§2 platform_settings,
§8 limits). Where a platform has several post types, the fields hold the most permissive
general rule and `notes` the narrower ones. "[unverified]" marks a figure the platform's
current documentation does not state; check it before relying on it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# The platforms say "MB"/"GB" without saying which; read them as binary units.
# Limits a platform states as exact byte counts (Bluesky) are written out as such.
MB = 1024 * 1024
GB = 1024 * MB

# The service accepts only these six content types (the interface spec §8).
PNG, JPEG, WEBP, GIF = "image/png", "image/jpeg", "image/webp", "image/gif"
MP4, MOV = "video/mp4", "video/quicktime"


@dataclass(frozen=True)
class TextLimits:
    """Text limits of a post.

    `counting` says how `max_length` is measured:
    "characters" (Unicode code points), "weighted" (X: URLs count 23, CJK and emoji
    count 2), "graphemes" (Bluesky), "utf16" (UTF-16 code units), "utf8_bytes"
    (UTF-8 bytes), "emoji_bytes" (Threads: characters, each emoji counts its UTF-8
    byte length). `required` means text is needed even when media is attached;
    a text-only post always needs text.
    """

    max_length: int | None
    counting: str
    required: bool
    text_only_allowed: bool


@dataclass(frozen=True)
class MediaLimits:
    supported: bool
    max_count: int
    max_size_bytes: int | None
    content_types: tuple[str, ...]
    max_duration_seconds: int | None = None
    min_duration_seconds: int | None = None


@dataclass(frozen=True)
class TitleLimits:
    supported: bool
    required: bool
    max_length: int | None


@dataclass(frozen=True)
class PlatformLimits:
    platform: str
    text: TextLimits
    images: MediaLimits
    videos: MediaLimits
    title: TitleLimits
    mixed_media: bool
    max_media_per_post: int
    requires_media: bool
    notes: tuple[str, ...] = ()

    def capabilities(self) -> dict[str, object]:
        text = {"supported": self.text.max_length is not None, **asdict(self.text)}
        images = asdict(self.images)  # the duration fields are for videos only
        del images["max_duration_seconds"], images["min_duration_seconds"]
        videos = asdict(self.videos)
        return {
            "text": text,
            "images": {**images, "content_types": list(self.images.content_types)},
            "videos": {**videos, "content_types": list(self.videos.content_types)},
            "title": asdict(self.title),
            "mixed_media": self.mixed_media,
            "max_media_per_post": self.max_media_per_post,
            "requires_media": self.requires_media,
            "notes": list(self.notes),
        }


def _media(
    count: int,
    size: int | None,
    types: tuple[str, ...],
    *,
    max_s: int | None = None,
    min_s: int | None = None,
) -> MediaLimits:
    return MediaLimits(True, count, size, types, max_s, min_s)


NO_MEDIA = MediaLimits(False, max_count=0, max_size_bytes=None, content_types=())
NO_TITLE = TitleLimits(supported=False, required=False, max_length=None)

PLATFORMS: tuple[str, ...] = (
    "x",
    "instagram",
    "tiktok",
    "youtube",
    "facebook",
    "linkedin",
    "pinterest",
    "threads",
    "bluesky",
)

LIMITS: dict[str, PlatformLimits] = {
    # X: platform docs §1 "Limits", and "Publish" for 4 photos / 1 GIF / 1 video; video
    # types from the media_type enum of specs/x/openapi.json. Image size is the
    # animated-GIF cap (15 MB); other images stop at 5 MB. The 0.5 s video minimum does
    # not fit an int field, so it is only in the notes.
    "x": PlatformLimits(
        platform="x",
        text=TextLimits(280, "weighted", required=False, text_only_allowed=True),
        images=_media(4, 15 * MB, (JPEG, PNG, GIF, WEBP)),
        videos=_media(1, 512 * MB, (MP4, MOV), max_s=140),
        title=NO_TITLE,
        mixed_media=False,
        max_media_per_post=4,
        requires_media=False,
        notes=(
            "Up to 4 images, or 1 GIF, or 1 video per post.",
            "JPEG/PNG/WEBP at most 5 MB; animated GIF at most 15 MB. Video 0.5-140 s.",
            "A URL counts 23 characters; CJK characters and emoji count 2.",
        ),
    ),
    # Instagram: platform docs §1.3 "Limits"; carousel of 10 from §1.2 [!] (the app
    # allows 20, the API reference says 10). Videos follow Reels; stories in the notes.
    "instagram": PlatformLimits(
        platform="instagram",
        text=TextLimits(2200, "characters", required=False, text_only_allowed=False),
        images=_media(10, 8 * MB, (JPEG,)),
        videos=_media(10, 300 * MB, (MP4, MOV), max_s=15 * 60, min_s=3),
        title=NO_TITLE,
        mixed_media=True,
        max_media_per_post=10,
        requires_media=True,
        notes=(
            "Images must be JPEG; PNG, WebP and GIF need converting first.",
            "Carousel: up to 10 images and videos; a reel is a single video.",
            "Caption: at most 30 hashtags and 20 @-mentions.",
            "Story video: 3-60 s, at most 100 MB.",
        ),
    ),
    # TikTok: platform docs §3.3 "Limits" and §3.2 (video caption 2200 UTF-16 runes;
    # photo description 4000 runes, 35 photos); photo title 90 from the interface spec §2 and
    # §8. Text holds the photo rule, the more permissive one.
    "tiktok": PlatformLimits(
        platform="tiktok",
        text=TextLimits(4000, "utf16", required=False, text_only_allowed=False),
        images=_media(35, 20 * MB, (JPEG, WEBP)),
        videos=_media(1, 4 * GB, (MP4, MOV), max_s=10 * 60),
        title=TitleLimits(supported=True, required=False, max_length=90),
        mixed_media=False,
        max_media_per_post=35,
        requires_media=True,
        notes=(
            "Video caption at most 2200 characters; photo description at most 4000.",
            "Photo title at most 90 characters; titles apply to photo posts only.",
            "A post is one video or up to 35 photos.",
            "The creator's own video cap (3, 5 or 10 min) may be lower than 10 min.",
        ),
    ),
    # YouTube: platform docs §4.3 "Limits" (file cap = discovery maxSize 274877906944,
    # i.e. 256 GiB); title required for video per the interface spec §2. 12 h (verified
    # channels; 15 min otherwise) is from YouTube Help via a third-party summary.
    "youtube": PlatformLimits(
        platform="youtube",
        text=TextLimits(5000, "utf8_bytes", required=False, text_only_allowed=False),
        images=NO_MEDIA,
        videos=_media(1, 256 * GB, (MP4, MOV), max_s=12 * 3600),
        title=TitleLimits(supported=True, required=True, max_length=100),
        mixed_media=False,
        max_media_per_post=1,
        requires_media=True,
        notes=(
            "Title required, at most 100 characters.",
            "Description at most 5000 UTF-8 bytes; no < or > in title or description.",
            "Videos over 15 min need a verified channel (up to 12 h).",
            "Tags at most 500 characters in total.",
        ),
    ),
    # Facebook Pages: platform docs §2.3 "Limits" and §2.2 (reels). Text 63,206 is
    # [unverified] (UI figure); photo 4 MB is [unverified] (older Photo reference). The
    # docs give no photo count, formats or feed-video size/length: 10 photos and
    # the content types are from third-party summaries.
    "facebook": PlatformLimits(
        platform="facebook",
        text=TextLimits(63206, "characters", required=False, text_only_allowed=True),
        images=_media(10, 4 * MB, (JPEG, PNG, GIF, WEBP)),
        videos=_media(1, None, (MP4, MOV)),
        title=NO_TITLE,
        mixed_media=False,
        max_media_per_post=10,
        requires_media=False,
        notes=(
            "Reels: MP4, 9:16, 3-90 s; at most 30 API reels per Page per 24 h.",
            "The photo size and text limits are not confirmed by Meta's current docs.",
        ),
    ),
    # LinkedIn: platform docs §4 "Limits"; 2-20 images from the MultiImage doc (§4
    # "Publish"). Image size [unverified: 5 vs 8 MB], the lower is used. Video
    # 3 s-30 min, 500 MB is from third-party summaries (older docs said 200 MB).
    "linkedin": PlatformLimits(
        platform="linkedin",
        text=TextLimits(3000, "characters", required=False, text_only_allowed=True),
        images=_media(20, 5 * MB, (JPEG, PNG, GIF)),
        videos=_media(1, 500 * MB, (MP4,), max_s=30 * 60, min_s=3),
        title=TitleLimits(supported=True, required=False, max_length=None),
        mixed_media=False,
        max_media_per_post=20,
        requires_media=False,
        notes=(
            "Characters \\ | { } @ [ ] ( ) < > # * _ ~ must be escaped in LinkedIn's "
            "text format; unescaped, the post is silently cut short.",
            "Multi-image posts take 2-20 images; images and video cannot be mixed.",
        ),
    ),
    # Pinterest: platform docs §5 "Limits". Title 100, description 800, carousel 2-5 from
    # the v5.23 spec. Media figures are third-party (Ayrshare/getlate); the video cap is
    # quoted as "1-2 GB", the lower is used.
    "pinterest": PlatformLimits(
        platform="pinterest",
        text=TextLimits(800, "characters", required=False, text_only_allowed=False),
        images=_media(5, 20 * MB, (JPEG, PNG, GIF, WEBP)),
        videos=_media(1, 1 * GB, (MP4, MOV), max_s=15 * 60, min_s=4),
        title=TitleLimits(supported=True, required=False, max_length=100),
        mixed_media=False,
        max_media_per_post=5,
        requires_media=True,
        notes=(
            "A board (boardId) is required.",
            "Carousel: 2-5 images, all with the same dimensions.",
            "Alt text at most 500 characters; link at most 2048.",
        ),
    ),
    # Threads: platform docs §3 "Limits"; carousel of 2-20 mixed items from §3 "Publish".
    "threads": PlatformLimits(
        platform="threads",
        text=TextLimits(500, "emoji_bytes", required=False, text_only_allowed=True),
        images=_media(20, 8 * MB, (JPEG, PNG)),
        videos=_media(20, 1 * GB, (MP4, MOV), max_s=5 * 60),
        title=NO_TITLE,
        mixed_media=True,
        max_media_per_post=20,
        requires_media=False,
        notes=(
            "Emoji count as their UTF-8 byte length toward the 500-character limit.",
            "Carousel: 2-20 images and videos, mixed.",
            "At most 5 unique links per post.",
        ),
    ),
    # Bluesky: platform docs §2 "Limits" (lexicons @d6296a1c); sizes are exact byte
    # counts from the lexicons. The 3 min video length is [unverified] (third-party). Video
    # goes up as a blob, so the PDS blob cap (50 MiB) applies; the lexicon's 300 MB needs
    # Bluesky's video service, which the client does not use yet.
    "bluesky": PlatformLimits(
        platform="bluesky",
        text=TextLimits(300, "graphemes", required=False, text_only_allowed=True),
        images=_media(4, 2_000_000, (JPEG, PNG, WEBP, GIF)),
        videos=_media(1, 52_428_800, (MP4,), max_s=3 * 60),
        title=NO_TITLE,
        mixed_media=False,
        max_media_per_post=4,
        requires_media=False,
        notes=(
            "Text is also capped at 3000 UTF-8 bytes.",
            "Up to 4 images or 1 video per post.",
            "Videos up to 50 MiB (the blob upload limit of Bluesky's servers).",
        ),
    ),
}


def limits_for(platform: str) -> PlatformLimits:
    return LIMITS[platform]


@dataclass(frozen=True)
class PostingRate:
    """At most `posts` posts by one account within any `seconds`, as the platform documents it."""

    posts: int
    seconds: int
    source: str


# How often one account may post, per platform (the platform documentation beside this
# project, /platforms/, names each source). A reply in a thread is a post too. Facebook Pages
# have no count (Graph's Business Use Case limits scale with the Page's engaged users), and
# YouTube's upload cap (100 videos.insert a day) is per project, not per channel: neither is
# paced per account here; their 429s are retried as not sent.
POSTING_RATES: dict[str, tuple[PostingRate, ...]] = {
    "x": (PostingRate(100, 15 * 60, "POST /2/tweets: 100 per 15 min per user"),),
    "bluesky": (
        PostingRate(1666, 3600, "5,000 write points an hour per account, 3 a create"),
        PostingRate(11666, 86400, "35,000 write points a day per account, 3 a create"),
    ),
    "threads": (PostingRate(250, 86400, "250 API-published posts per rolling 24 h per profile"),),
    "instagram": (PostingRate(50, 86400, "media_publish: 50 posts within a 24 h moving period"),),
    "linkedin": (PostingRate(150, 86400, "about 150 posts per member a day [unverified]"),),
    "tiktok": (
        PostingRate(6, 60, "post/publish init: 6 requests a minute per user token"),
        PostingRate(15, 86400, "about 15 posts a day per creator, across all API clients"),
    ),
    "pinterest": (PostingRate(100, 1, "Standard access: 100 requests a second per user"),),
}


def posting_rates(platform: str) -> tuple[PostingRate, ...]:
    return POSTING_RATES.get(platform, ())
