"""The control API of CONTRACT.md: queue outcomes, list posts and comments, remove a post as its
owner would, set metrics, reset; and beyond
it, revoke a token, slow every platform answer down, give a Pinterest account more boards and
change what a TikTok creator is offered."""

from __future__ import annotations

from typing import TypeGuard

from werkzeug.routing import Rule
from werkzeug.wrappers import Request, Response

from sandbox.http import Context, json_body, json_response
from sandbox.platforms import pinterest, tiktok
from sandbox.state import OUTCOMES, PLATFORMS


def _bad(message: str) -> Response:
    return json_response({"error": message}, status=400)


def queue_outcomes(ctx: Context, request: Request) -> Response:
    body = json_body(request)
    if not isinstance(body, dict) or body.get("platform") not in PLATFORMS:
        return _bad(f"platform must be one of {', '.join(PLATFORMS)}")
    outcomes = body.get("outcomes")
    if not isinstance(outcomes, list) or any(o not in OUTCOMES for o in outcomes):
        return _bad(f"outcomes must be a list of {', '.join(OUTCOMES)}")
    ctx.state.queue_outcomes(body["platform"], outcomes)
    return json_response({"platform": body["platform"], "queued": len(outcomes)})


def list_posts(ctx: Context, request: Request) -> Response:
    platform = request.args.get("platform")
    if platform is not None and platform not in PLATFORMS:
        return _bad(f"platform must be one of {', '.join(PLATFORMS)}")
    return json_response({"posts": [post.public() for post in ctx.state.posts_of(platform)]})


def list_comments(ctx: Context, request: Request) -> Response:
    platform = request.args.get("platform")
    if platform is not None and platform not in PLATFORMS:
        return _bad(f"platform must be one of {', '.join(PLATFORMS)}")
    return json_response({"comments": [comment.public() for comment in ctx.state.comments_of(platform)]})


def remove_post(ctx: Context, request: Request) -> Response:
    """Take a post down as its owner would in the network's own app: every later read of it
    answers as the network does for a deleted post."""
    body = json_body(request)
    if not isinstance(body, dict) or body.get("platform") not in PLATFORMS or not isinstance(body.get("id"), str):
        return _bad(f"platform (one of {', '.join(PLATFORMS)}) and id (a string) are required")
    post = ctx.state.remove_post(body["platform"], body["id"])
    if post is None:
        return json_response({"error": f"no {body['platform']} post has the id {body['id']}"}, status=404)
    return json_response({"platform": post.platform, "id": post.id, "removed": True})


def set_metrics(ctx: Context, request: Request) -> Response:
    body = json_body(request)
    if not isinstance(body, dict) or body.get("platform") not in PLATFORMS or not body.get("post_id"):
        return _bad("platform and post_id are required")
    values = {name: body.get(name, 0) for name in ("views", "likes", "comments", "shares")}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values.values()):
        return _bad("views, likes, comments and shares must be whole numbers of at least 0")
    with ctx.state.lock:
        ctx.state.metrics[(body["platform"], str(body["post_id"]))] = values
    return json_response({"platform": body["platform"], "post_id": str(body["post_id"]), **values})


def reset(ctx: Context, request: Request) -> Response:
    ctx.state.reset()
    return json_response({"reset": True})


def revoke_token(ctx: Context, request: Request) -> Response:
    """Beyond the contract: make the platform refuse a token from now on (401), as when a user
    revokes the app's access."""
    body = json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get("token"), str):
        return _bad("token is required")
    with ctx.state.lock:
        ctx.state.revoked.add(body["token"])
    return json_response({"revoked": True})


MAX_LATENCY_SECONDS = 120.0


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def set_latency(ctx: Context, request: Request) -> Response:
    """Beyond the contract: hold every platform answer `seconds` after its work is done (the
    post is made, the upload stored), as a platform slower than its clients' read timeout does;
    0 answers at once again. `upload_bytes_per_second` (optional; absent or null: unlimited)
    reads each media upload's body (any body but JSON or form fields) at most that fast, as a
    platform's ingest does, so a 200 MB video takes 20 s to send at 10 MB/s. A reset clears both."""
    body = json_body(request)
    seconds = body.get("seconds") if isinstance(body, dict) else None
    if not _number(seconds) or not 0 <= seconds <= MAX_LATENCY_SECONDS:
        return _bad(f"seconds must be a number from 0 to {MAX_LATENCY_SECONDS:.0f}")
    rate = body.get("upload_bytes_per_second")
    if rate is not None and (not _number(rate) or rate <= 0):
        return _bad("upload_bytes_per_second must be a number above 0, or null for no limit")
    with ctx.state.lock:
        ctx.state.latency_seconds = float(seconds)
        ctx.state.upload_bytes_per_second = None if rate is None else float(rate)
    return json_response({"seconds": float(seconds), "upload_bytes_per_second": ctx.state.upload_bytes_per_second})


MAX_BOARDS_AT_ONCE = 500


def add_pinterest_boards(ctx: Context, request: Request) -> Response:
    """Beyond the contract: `{"account": external id, "names": [...]}` adds boards to the account
    (every account has the contract's board already); answers the new boards."""
    body = json_body(request)
    names = body.get("names") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("account"), str) or not body["account"]:
        return _bad("account (the account's external id) is required")
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_BOARDS_AT_ONCE:
        return _bad(f"names must be a list of 1 to {MAX_BOARDS_AT_ONCE} board names")
    if not all(isinstance(n, str) and 1 <= len(n) <= 180 for n in names):
        return _bad("each name must be a string of 1 to 180 characters")
    return json_response({"boards": pinterest.add_boards(ctx, body["account"], names)})


def set_tiktok_creator(ctx: Context, request: Request) -> Response:
    """Beyond the contract: `{"account": external id, ...}` with any of privacy_level_options
    (a non-empty list of TikTok's levels), comment_disabled, duet_disabled, stitch_disabled
    (booleans) and max_video_post_duration_sec (seconds) changes what creator_info answers."""
    body = json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get("account"), str) or not body["account"]:
        return _bad("account (the account's external id) is required")
    settings = {k: v for k, v in body.items() if k != "account"}
    problem = _creator_problem(settings)
    return _bad(problem) if problem else json_response(tiktok.set_creator(ctx, body["account"], settings))


def _creator_problem(settings: dict[str, object]) -> str:
    unknown = set(settings) - set(tiktok.CREATOR_DEFAULTS)
    if unknown:
        return f"unknown fields: {', '.join(sorted(unknown))}"
    levels = settings.get("privacy_level_options", tiktok.PRIVACY_LEVELS)
    if not isinstance(levels, list | tuple) or not levels or set(levels) - set(tiktok.PRIVACY_LEVELS):
        return f"privacy_level_options must be a non-empty list of {', '.join(tiktok.PRIVACY_LEVELS)}"
    if any(
        not isinstance(settings.get(k, False), bool) for k in ("comment_disabled", "duet_disabled", "stitch_disabled")
    ):
        return "comment_disabled, duet_disabled and stitch_disabled must be true or false"
    cap = settings.get("max_video_post_duration_sec", 1)
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        return "max_video_post_duration_sec must be a whole number of seconds"
    return ""


RULES = [
    Rule("/_sandbox/outcomes", endpoint=queue_outcomes, methods=["POST"]),
    Rule("/_sandbox/posts", endpoint=list_posts, methods=["GET"]),
    Rule("/_sandbox/posts/remove", endpoint=remove_post, methods=["POST"]),
    Rule("/_sandbox/comments", endpoint=list_comments, methods=["GET"]),
    Rule("/_sandbox/metrics", endpoint=set_metrics, methods=["POST"]),
    Rule("/_sandbox/reset", endpoint=reset, methods=["POST"]),
    Rule("/_sandbox/tokens/revoke", endpoint=revoke_token, methods=["POST"]),
    Rule("/_sandbox/latency", endpoint=set_latency, methods=["POST"]),
    Rule("/_sandbox/pinterest/boards", endpoint=add_pinterest_boards, methods=["POST"]),
    Rule("/_sandbox/tiktok/creator", endpoint=set_tiktok_creator, methods=["POST"]),
]
