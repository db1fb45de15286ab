"""How each network shows a post in its feed, for the compose page's live preview.

Two halves, both served to the page, never kept in its script:
- `FEEDS`: what the feed does to a post beyond its limits (where a caption folds behind
  "more", the range of image shapes it shows, whether a link becomes a card). The page reads it
  from a data attribute once.
- `text_preview`: the text the network keeps and the part over its limit, cut with the
  platform client's own counting (`text_length`) against the limit the check applies, so the
  mark in the preview and the count beside it never disagree.

Image shapes are width / height. A range crops an image narrower or wider than it to its nearer
end; equal ends are a fixed frame; None shows the image as it is. Figures the platforms'
current documentation does not state are marked [unverified].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from accounts.platforms import x
from accounts.platforms.registry import NoClient, client_for
from publishing.checks import TargetCheck


@dataclass(frozen=True)
class Feed:
    fold: int | None  # characters shown before the caption folds, None: all of it
    more: str  # the words the network puts at the fold
    aspect: tuple[float, float] | None  # narrowest and widest image shape the feed shows
    link_card: bool  # a link in the text becomes a card under it


FEEDS: dict[str, Feed] = {
    # X shows a single image uncropped within about 3:4 to 16:9 [unverified]; a URL makes a card.
    "x": Feed(None, "", (3 / 4, 16 / 9), link_card=True),
    # Instagram: images between 4:5 and 1.91:1 (platform docs); the caption folds after ~125
    # characters [unverified]; links in captions are plain text.
    "instagram": Feed(125, "… more", (4 / 5, 1.91), link_card=False),
    # TikTok and Reels fill a 9:16 frame (platform docs: 9:16 recommended); no link cards.
    "tiktok": Feed(None, "", (9 / 16, 9 / 16), link_card=False),
    "youtube": Feed(None, "", (16 / 9, 16 / 9), link_card=False),
    # Facebook folds long posts behind "See more" after ~480 characters [unverified]; the
    # client sends a text post's first URL as `link`, from which Facebook builds the card.
    "facebook": Feed(480, "… See more", (4 / 5, 1.91), link_card=True),
    # LinkedIn folds after ~210 characters [unverified]; images within 4:5 to 1.91:1 [unverified].
    # A card needs an article in the post, which the client does not send, and LinkedIn does
    # not unfurl a link in an API post's text [unverified].
    "linkedin": Feed(210, "…see more", (4 / 5, 1.91), link_card=False),
    # Pinterest: a 2:3 pin (platform docs: 2:3 recommended); the description is not in the grid.
    "pinterest": Feed(None, "", (2 / 3, 2 / 3), link_card=False),
    # Threads previews the first link of a post's text.
    "threads": Feed(None, "", None, link_card=True),
    # Bluesky shows an image at its own aspect ratio (sent with it). A link card is an embed
    # the client builds (the `embed` setting, which compose does not offer); Bluesky never
    # makes one from a link in the text.
    "bluesky": Feed(None, "", None, link_card=False),
}


def feeds() -> dict[str, dict[str, Any]]:
    """`FEEDS` as the page reads it."""
    return {platform: asdict(feed) for platform, feed in FEEDS.items()}


def check_previews(targets: Sequence[TargetCheck]) -> dict[str, dict[str, Any]]:
    """Each checked target's `text_preview`, by account id."""
    previews = {}
    for target in targets:
        if target.text is None or target.platform is None:
            continue
        length: Callable[[str], int]
        try:
            length = client_for(target.platform).text_length
        except NoClient:
            length = len
        previews[target.account_id] = text_preview(target.text, limit=target.limit, length=length)
    return previews


def text_preview(text: str, *, limit: int | None, length: Callable[[str], int]) -> dict[str, Any]:
    """The text as the network keeps it (`kept`) and the part past its limit (`over`, "" when
    it fits), with the first link in it."""
    kept = text if limit is None or length(text) <= limit else text[: _fitting(text, limit, length)]
    return {"kept": kept, "over": text[len(kept) :], "link": _link(text)}


def _fitting(text: str, limit: int, length: Callable[[str], int]) -> int:
    # The longest prefix within the limit. Every counting grows with the text, so a binary
    # search finds it in log n counts.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if length(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return low


def _link(text: str) -> dict[str, str] | None:
    url = x.first_url(text)
    if url is None:
        return None
    parts = urlsplit(url)
    return {"url": url, "domain": parts.hostname or "", "path": parts.path if parts.path != "/" else ""}
