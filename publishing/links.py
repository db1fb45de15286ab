"""Where a target's post can be seen. For a sandbox account the platform's own URL (x.com, ...)
leads nowhere: the post exists only in the sandbox, whose viewer page shows it as stored."""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings

from publishing.models import Target, ThreadItem


def live_link(post: Target | ThreadItem, target: Target | None = None) -> str:
    """The live post's link, or "" before there is one: a target's, or one of its thread items'
    (given with its `target`). Reads `target.account`: load the accounts with the targets
    (`publishing.selectors.with_accounts`) when showing many."""
    target = target or (post if isinstance(post, Target) else post.target)
    if post.platform_post_id and target.account.sandbox:
        # Some ids are paths or URIs (Bluesky's at://..., LinkedIn's urn:li:...): one segment here.
        post_id = quote(post.platform_post_id, safe="")
        return f"{settings.SANDBOX_URL}/_sandbox/posts/{target.platform}/{post_id}"
    return post.platform_post_url
