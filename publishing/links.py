"""Where a target's post can be seen. For a sandbox account the platform's own URL (x.com, ...)
leads nowhere: the post exists only in the sandbox, whose viewer page shows it as stored."""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings

from publishing.models import Target


def live_link(target: Target) -> str:
    """The live post's link, or "" before there is one. Reads `target.account`: load the accounts
    with the targets (`publishing.selectors.with_accounts`) when showing many."""
    if target.platform_post_id and target.account.sandbox:
        # Some ids are paths or URIs (Bluesky's at://..., LinkedIn's urn:li:...): one segment here.
        post_id = quote(target.platform_post_id, safe="")
        return f"{settings.SANDBOX_URL}/_sandbox/posts/{target.platform}/{post_id}"
    return target.platform_post_url
