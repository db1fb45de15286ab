"""Facebook Pages (Graph API v25.0): publish to a Page with its Page access token.

Why it looks the way it does:

- One Graph call per kind of post, as Meta's `Page.json` lists them: text (and link) to
  `POST /{page-id}/feed`; one photo to `POST /{page-id}/photos` (`url` = our short-lived pull
  URL, Meta fetches it); several photos as unpublished photos (`published=false`) then one feed
  post with `attached_media[i]={"media_fbid": id}`; a video to
  `POST graph-video.facebook.com/{page-id}/videos` with `file_url`; `postType=reels` through the
  Reels flow: `video_reels` `upload_phase=start` -> `rupload.facebook.com` binary upload
  (`Authorization: OAuth`, `offset`, `file_size`) -> `upload_phase=finish`. The album's photos
  and the reel's start and upload are `prepare()`: nothing is visible before the feed post or
  `finish`.
- Parameters go form-encoded in the body (Graph reads body and query alike), the token as an
  `Authorization: Bearer` header so it never lands in a URL or a log line.
- Idempotency: Graph has no idempotency key. The reel's `video_id` (from `start`) is saved with
  `conn.save_ref` before the upload and before `finish`; a video's id only exists once the
  create call answered, so an UNKNOWN feed/photo/video create is settled by `find_recent()`
  over `published_posts` (posts) or the `videos`/`video_reels` edges (their descriptions),
  paged by cursor (`after`) since a busy Page may post more than a page in the meantime.
- A text post's first URL is also sent as `link` so Facebook builds the link preview.
- Videos and reels process after the call: `status.video_status` / `publishing_phase` are read
  (one check inside `publish()`, more via `check()` with the `video_id` ref).
- Outcomes are read as `graph.py` reads every Graph answer, with Facebook's codes (`CODES`):
  190 and 102 mean re-authorize; 4, 17, 32, 341, 613, 80001 are rate limits (NOT_SENT); the
  transient 1 and 2 are UNKNOWN. Facebook's error codes write the subcode after a dot: "190.463".
- Connecting: Facebook Login (authorize dialog with `state` and PKCE S256) -> short-lived user
  token -> long-lived user token (`fb_exchange_token`) -> `GET /me/accounts` -> the Page and its
  never-expiring Page token. The long-lived user token is kept as `refresh_token`; `refresh()`
  exchanges it again and re-reads the Page token (Meta does not rotate tokens). A disconnect
  deletes the login's permissions with that user token, which ends the Page token too.
- A first comment (`publish()` of a Post with `reply_to`) is `POST /{post-or-video-id}/comments`
  with `message`, made as the Page by its token; its ref names the comment (`comment_id`) and
  what it is on (`parent_id`). Comments are read back with `GET /{comment-id}` and found among
  `GET /{parent}/comments` (newest first, by the Page). Posts, videos, reels and comments are
  all deleted with `DELETE /{id}` (`GraphClient.delete`). Meta's references name no comment
  length; 8000 characters is the commonly cited limit, and the one applied here.
- Metrics: `shares`, `reactions.summary(total_count)`, `comments.summary(total_count)` on the
  post, views from `/insights?metric=post_total_media_view_unique` (the replacement of the
  deprecated `post_impressions_unique`); videos and reels read `views`, `likes` and `comments`
  on the video node (no share count there: `shares` stays 0 for them).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from accounts.platforms.base import (
    FIT_SETTING,
    Connection,
    Credentials,
    Media,
    Metrics,
    NoAnswer,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    failed,
    json_object,
)
from accounts.platforms.graph import (
    GraphClient,
    GraphCodes,
    created_since,
    insight_values,
    reaches_before,
    read_failure,
)
from accounts.platforms.interface import COMMENT

VERSION = "v25.0"
GRAPH = f"https://graph.facebook.com/{VERSION}"
GRAPH_VIDEO = f"https://graph-video.facebook.com/{VERSION}"
RUPLOAD = f"https://rupload.facebook.com/video-upload/{VERSION}"
DIALOG = f"https://www.facebook.com/{VERSION}/dialog/oauth"
SCOPES = "pages_show_list,pages_read_engagement,pages_manage_posts,pages_manage_engagement,publish_video,read_insights"
POST_TYPES = ("post", "reels")
REEL_MIN_SECONDS, REEL_MAX_SECONDS = 3, 90
REEL_MIN_WIDTH, REEL_MIN_HEIGHT = 540, 960
PAGE_LIMIT = 25  # items per page of a find_recent() listing
POST_FIELDS = "shares,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)"
VIDEO_FIELDS = "views,likes.summary(total_count).limit(0),comments.summary(total_count).limit(0)"
VIEWS_METRIC = "post_total_media_view_unique"
COMMENT_FIELDS = "id,message,from,created_time"
VIDEO_STATE_FIELDS = "status,permalink_url,post_id,published"
CODES = GraphCodes(
    auth=frozenset({102, 190}),
    throttled=frozenset({4, 17, 32, 341, 613, 80001}),
    transient=frozenset({1, 2}),
    subcode_separator=".",
)
_URL = re.compile(r"https?://[^\s<>\"]+")
Matches = Callable[[Mapping[str, Any]], bool]


def _first_link(text: str) -> str:
    match = _URL.search(text)
    return match.group().rstrip(".,;:!?'\")]}") if match else ""


def _feed_form(post: Post, photo_ids: Sequence[str] = ()) -> dict[str, str]:
    form = {"message": post.text} if post.text else {}
    link = _first_link(post.text) if not photo_ids else ""
    if link:
        form["link"] = link
    for index, photo_id in enumerate(photo_ids):
        form[f"attached_media[{index}]"] = json.dumps({"media_fbid": photo_id})
    return form


def _photo_form(media: Media, post: Post | None) -> dict[str, str]:
    form = {"url": media.pull_url(), "published": "true" if post else "false"}
    if media.alt:  # Photo's `alt_text_custom` in the published spec (Page /photos takes it)
        form["alt_text_custom"] = media.alt
    if post and post.text:
        form["message"] = post.text
    return form


def _described(post: Post) -> dict[str, str]:
    return {"description": post.text} if post.text else {}


def _page(conn: Connection) -> str:
    return conn.credentials.external_id


def _published(post_id: str, url: str = "", ref: Mapping[str, str] | None = None) -> Outcome:
    url = url or f"https://www.facebook.com/{post_id}"
    return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, ref=dict(ref or {}))


def _commented(comment_id: str, parent_id: str, url: str = "") -> Outcome:
    ref = {"comment_id": comment_id, "parent_id": parent_id}
    return Outcome(OutcomeKind.PUBLISHED, post_id=comment_id, url=url, ref=ref)


def _video_url(page_id: str, video_id: str, kind: str) -> str:
    if kind == "reel":
        return f"https://www.facebook.com/reel/{video_id}"
    return f"https://www.facebook.com/{page_id}/videos/{video_id}"


def _absolute(permalink: Any) -> str:
    text = str(permalink or "")
    return f"https://www.facebook.com{text}" if text.startswith("/") else text


def _processing(outcome: Outcome) -> bool:
    return outcome.kind is OutcomeKind.PROCESSING


def _total(node: Mapping[str, Any], edge: str) -> int:
    summary = (node.get(edge) or {}).get("summary") or {}
    return int(summary.get("total_count") or 0)


def _same(item: Mapping[str, Any], field: str, text: str, since: dt.datetime) -> bool:
    return str(item.get(field) or "").strip() == text.strip() and created_since(item.get("created_time"), since)


def _by(item: Mapping[str, Any], page_id: str) -> bool:
    author = item.get("from")
    return isinstance(author, dict) and str(author.get("id") or "") == page_id


def _post_type(post: Post) -> str:
    value = post.settings.get("postType", "post")
    return value if value in POST_TYPES else "post"


def _is_reel(post: Post) -> bool:
    return _post_type(post) == "reels" and bool(post.media)


def _is_album(post: Post) -> bool:
    return len(post.media) > 1 and not post.media[0].is_video


def _setting_problems(post: Post) -> list[Problem]:
    value = post.settings.get("postType", "post")
    if value not in POST_TYPES:
        return [Problem("postType", "INVALID_SETTING", "postType must be one of: post, reels.")]
    return _reel_problems(post.media) if value == "reels" else []


def _reel_problems(media: Sequence[Media]) -> list[Problem]:
    if not media:
        return [Problem("media", "MEDIA_REQUIRED", "A Facebook reel needs one video.")]
    if len(media) > 1 or not media[0].is_video:
        return [Problem("postType", "INVALID_COMBINATION", "A Facebook reel is exactly one video.")]
    return _reel_video_problems(media[0])


def _reel_video_problems(video: Media) -> list[Problem]:
    if video.content_type != "video/mp4":
        return [Problem("media[0]", "UNSUPPORTED_MEDIA_TYPE", "Facebook reels must be .mp4 files.")]
    seconds = video.duration_seconds
    if seconds is not None and seconds > REEL_MAX_SECONDS:
        return [Problem("media[0]", "VIDEO_TOO_LONG", f"Reels last at most {REEL_MAX_SECONDS} seconds.")]
    if seconds is not None and seconds < REEL_MIN_SECONDS:
        return [Problem("media[0]", "VIDEO_TOO_SHORT", f"Reels last at least {REEL_MIN_SECONDS} seconds.")]
    if video.width and video.height and (video.width < REEL_MIN_WIDTH or video.height < REEL_MIN_HEIGHT):
        message = f"Reels are 9:16 and at least {REEL_MIN_WIDTH}x{REEL_MIN_HEIGHT} pixels."
        return [Problem("media[0]", "VIDEO_TOO_SMALL", message)]
    return []


class Client(GraphClient[dict[str, str]]):
    platform = "facebook"
    first_comment = COMMENT
    comment_max_length = 8000
    api = GRAPH
    codes = CODES
    authorize_endpoint = DIALOG
    scopes = SCOPES
    setting_types = {**FIT_SETTING, "postType": ("string",)}
    status_polls = 1  # video status reads inside publish() before answering PROCESSING
    poll_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post)
        type_problems = _setting_problems(post)
        if _post_type(post) == "reels" or type_problems:
            return problems + type_problems
        return problems + self.media_problems(post.media)

    def _text_problems(self, post: Post) -> list[Problem]:
        if not post.text.strip() and not post.media:
            return [Problem("text", "EMPTY_POST", "A Facebook post needs text or media.")]
        limit = self.limits.text.max_length or 63206
        if len(post.text) > limit:
            return [Problem("text", "TEXT_TOO_LONG", f"Facebook takes at most {limit} characters.")]
        return []

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> dict[str, str]:
        """A reel's video or an album's photos, uploaded and not public yet; the saved ref."""
        if _is_reel(post):
            return self._upload_reel(conn, post.media[0])
        if _is_album(post):
            return self._upload_album(conn, post.media)
        return {}

    def create(self, conn: Connection, post: Post, prepared: dict[str, str]) -> Outcome:
        if post.reply_to is not None:
            return self._comment(conn, post.reply_to.parent_id, post.text)
        if _is_reel(post):
            return self._finish_reel(conn, post, prepared)
        if post.media and post.media[0].is_video:
            return self._publish_video(conn, post)
        if len(post.media) == 1:
            return self._create_post(conn, f"/{_page(conn)}/photos", _photo_form(post.media[0], post))
        photo_ids = prepared["photo_ids"].split(",") if _is_album(post) else []
        return self._create_post(conn, f"/{_page(conn)}/feed", _feed_form(post, photo_ids))

    def _create_post(self, conn: Connection, path: str, form: Mapping[str, str]) -> Outcome:
        """The call that makes a feed post or a photo: the post's id, or what the answer means."""
        response = self.send(conn, "POST", path, data=form)
        if not self.succeeded(response):
            return self.refusal(response)
        created = self.body(response)
        post_id = str(created.get("post_id") or created.get("id") or "")
        if not post_id:
            return Outcome(OutcomeKind.FAILED, error_code="NO_ID", http_status=response.status_code)
        return _published(post_id, ref={"post_id": post_id})

    def _comment(self, conn: Connection, parent_id: str, text: str) -> Outcome:
        """The Page's comment on its post or video; Graph answers only the comment's id."""
        created = self.call(conn, "POST", f"/{parent_id}/comments", data={"message": text})
        comment_id = str(created.get("id") or "")
        return _commented(comment_id, parent_id) if comment_id else failed("NO_ID", "The comment has no id.")

    def _publish_video(self, conn: Connection, post: Post) -> Outcome:
        form = {"file_url": post.media[0].pull_url(), "published": "true", **_described(post)}
        created = self.call(conn, "POST", f"{GRAPH_VIDEO}/{_page(conn)}/videos", data=form)
        video_id = str(created.get("id") or "")
        if not video_id:
            return Outcome(OutcomeKind.FAILED, error_code="NO_ID")
        return self._follow_video(conn, {"video_id": video_id, "kind": "video"}, self.status_polls)

    def _finish_reel(self, conn: Connection, post: Post, ref: dict[str, str]) -> Outcome:
        """`upload_phase=finish` publishes the reel; every outcome keeps the saved video id."""
        form = {"upload_phase": "finish", "video_id": ref["video_id"], "video_state": "PUBLISHED", **_described(post)}
        try:
            response = self.send(conn, "POST", f"/{_page(conn)}/video_reels", data=form)
        except PlatformError as exc:
            return replace(exc.outcome, ref=ref)
        if not self.succeeded(response):
            return replace(self.refusal(response), ref=ref)
        if self.body(response).get("success") is not True:
            return Outcome(OutcomeKind.FAILED, ref=ref, error_code="NOT_PUBLISHED", http_status=response.status_code)
        return self._follow_video(conn, ref, self.status_polls)

    # --- media -----------------------------------------------------------------------------

    def _upload_album(self, conn: Connection, media: Sequence[Media]) -> dict[str, str]:
        """Unpublished photos (nothing visible yet) for the feed post to attach."""
        ids = [self._upload_photo(conn, item) for item in media]
        ref = {"photo_ids": ",".join(ids), "page_id": _page(conn)}
        conn.save_ref(ref)
        return ref

    def _upload_photo(self, conn: Connection, media: Media) -> str:
        body = self.call(conn, "POST", f"/{_page(conn)}/photos", data=_photo_form(media, None))
        return str(body.get("id") or "")

    def _upload_reel(self, conn: Connection, video: Media) -> dict[str, str]:
        """Start a reel, save its video id, then upload the file to it."""
        started = self.call(conn, "POST", f"/{_page(conn)}/video_reels", data={"upload_phase": "start"})
        if not started.get("video_id"):
            no_id = Outcome(OutcomeKind.FAILED, error_code="NO_VIDEO_ID", error_message="start gave no video_id")
            raise PlatformError(no_id)
        ref = {"video_id": str(started["video_id"]), "kind": "reel"}
        conn.save_ref(ref)
        self._send_reel_file(conn, ref["video_id"], video)
        return ref

    def _send_reel_file(self, conn: Connection, video_id: str, video: Media) -> None:
        """The bytes to rupload.facebook.com, which takes the token as `OAuth`, not Bearer."""
        headers = {
            "Authorization": f"OAuth {conn.credentials.access_token}",
            "offset": "0",
            "file_size": str(video.size_bytes),
            "Content-Type": "application/octet-stream",
        }
        with video.open() as stream:
            sent = self.call(conn, "POST", f"{RUPLOAD}/{video_id}", data=stream, headers=headers)
        if sent.get("success") is not True:
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="UPLOAD"))

    def _follow_video(self, conn: Connection, ref: Mapping[str, str], polls: int) -> Outcome:
        """Read the video's status up to `polls` times: PUBLISHED, FAILED or still PROCESSING."""
        outcome = self.poll(lambda: self._video_state(conn, ref), _processing, polls)
        return Outcome(OutcomeKind.PROCESSING, ref=dict(ref)) if _processing(outcome) else outcome

    def _video_state(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        try:
            node = self.node(conn, f"/{ref['video_id']}", params={"fields": VIDEO_STATE_FIELDS})
        except NoAnswer:  # the video may well be processing
            return Outcome(OutcomeKind.PROCESSING, ref=dict(ref))
        except PlatformError as exc:
            return replace(exc.outcome, ref=dict(ref))
        return self._video_outcome(conn, ref, node)

    def _video_outcome(self, conn: Connection, ref: Mapping[str, str], node: Mapping[str, Any]) -> Outcome:
        status: dict[str, Any] = node["status"] if isinstance(node.get("status"), dict) else {}
        publishing = status.get("publishing_phase") or {}
        if status.get("video_status") == "error" or publishing.get("status") == "error":
            errors = (status.get("processing_phase") or {}).get("errors") or publishing.get("errors") or [{}]
            message = str(errors[0].get("message", "")) if isinstance(errors[0], dict) else ""
            return Outcome(OutcomeKind.FAILED, ref=dict(ref), error_code="VIDEO_FAILED", error_message=message)
        if status.get("video_status") == "ready" and publishing.get("status", "complete") == "complete":
            video_id = ref["video_id"]
            url = _video_url(_page(conn), video_id, ref.get("kind", "video"))
            return _published(video_id, url, {**ref, "post_id": str(node.get("post_id") or "")})
        return Outcome(OutcomeKind.PROCESSING, ref=dict(ref))

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("comment_id"):
            return self._read_comment(conn, ref["comment_id"], ref.get("parent_id", ""))
        if ref.get("video_id"):
            return self._follow_video(conn, ref, 1)
        if ref.get("post_id"):
            return self._read_back(conn, ref["post_id"])
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check: use find_recent()")

    def _read_back(self, conn: Connection, post_id: str) -> Outcome:
        try:
            node = self.node(conn, f"/{post_id}", params={"fields": "id,permalink_url,is_published"})
        except PlatformError as exc:
            return read_failure(exc)
        return _published(post_id, _absolute(node.get("permalink_url")), {"post_id": post_id})

    def _read_comment(self, conn: Connection, comment_id: str, parent_id: str) -> Outcome:
        try:
            node = self.node(conn, f"/{comment_id}", params={"fields": "id,permalink_url"})
        except PlatformError as exc:
            return read_failure(exc)
        return _commented(comment_id, parent_id, _absolute(node.get("permalink_url")))

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The Page's posts (or videos, or reels) newest first; a comment, among its parent's."""
        if post.reply_to is not None:
            return self._find_comment(conn, post, post.reply_to.parent_id, since)
        edge, text_field, kind = self._edge_of(post)
        params = {"fields": f"id,{text_field},created_time", "limit": PAGE_LIMIT}
        path = f"/{_page(conn)}/{edge}"
        found = self._newest(conn, path, params, lambda item: _same(item, text_field, post.text, since), since)
        return found if isinstance(found, Outcome) else self._found(conn, str(found["id"]), kind)

    def _find_comment(self, conn: Connection, post: Post, parent_id: str, since: dt.datetime) -> Outcome:
        params = {"fields": COMMENT_FIELDS, "order": "reverse_chronological", "limit": PAGE_LIMIT}
        page_id = _page(conn)
        found = self._newest(
            conn,
            f"/{parent_id}/comments",
            params,
            lambda item: _by(item, page_id) and _same(item, "message", post.text, since),
            since,
        )
        return found if isinstance(found, Outcome) else _commented(str(found["id"]), parent_id)

    def _newest(
        self, conn: Connection, path: str, params: Mapping[str, Any], matches: Matches, since: dt.datetime
    ) -> Mapping[str, Any] | Outcome:
        """The first item of the edge that `matches`, page after page (`after`) until a page
        reaches back before `since`, there is no next page, or MAX_RECENT_PAGES were read. Else
        FAILED NOT_FOUND, or what a failed read says."""
        try:
            for listed in self.edge_pages(conn, path, params):
                found = next((item for item in listed if matches(item)), None)
                if found is not None:
                    return found
                if reaches_before(listed, "created_time", since):
                    break
        except PlatformError as exc:
            return read_failure(exc)
        return failed("NOT_FOUND", f"No recent item of {path} with this text.")

    @staticmethod
    def _edge_of(post: Post) -> tuple[str, str, str]:
        if post.media and post.media[0].is_video:
            reel = _post_type(post) == "reels"
            return ("video_reels" if reel else "videos"), "description", ("reel" if reel else "video")
        return "published_posts", "message", "post"

    def _found(self, conn: Connection, item_id: str, kind: str) -> Outcome:
        if kind == "post":
            return _published(item_id, ref={"post_id": item_id})
        return self.check(conn, {"video_id": item_id, "kind": kind})

    # --- metrics ---------------------------------------------------------------------------

    def post_metrics(self, conn: Connection, post_id: str) -> Metrics:
        """A post (`{page}_{n}`) with its views insight, or a video."""
        if "_" not in post_id:
            return self._video_metrics(conn, post_id)
        node = self.call(conn, "GET", f"/{post_id}", params={"fields": POST_FIELDS})
        reactions, shares = _total(node, "reactions"), int((node.get("shares") or {}).get("count") or 0)
        views = self._post_views(conn, post_id)
        comments = _total(node, "comments")
        return Metrics(views=views, likes=reactions, comments=comments, shares=shares, extra={"reactions": reactions})

    def _video_metrics(self, conn: Connection, video_id: str) -> Metrics:
        node = self.call(conn, "GET", f"/{video_id}", params={"fields": VIDEO_FIELDS})
        views = node.get("views")
        return Metrics(
            views=views if isinstance(views, int) else None,
            likes=_total(node, "likes"),
            comments=_total(node, "comments"),
        )

    def _post_views(self, conn: Connection, post_id: str) -> int | None:
        insights = self.call(conn, "GET", f"/{post_id}/insights", params={"metric": VIEWS_METRIC})
        return insight_values(insights).get(VIEWS_METRIC)

    # --- Facebook Login --------------------------------------------------------------------

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        query = {"client_id": self.app(sandbox).client_id, "redirect_uri": redirect_uri, "code": code}
        short = self._token({**query, "code_verifier": code_verifier}, sandbox)
        return self._page_credentials(self._long_lived(str(short["access_token"]), sandbox), sandbox, page_id="")

    def refresh(self, conn: Connection) -> Credentials:
        """A fresh long-lived user token from the stored one, then the Page's token again."""
        user = self._long_lived(conn.credentials.refresh_token, conn.sandbox)
        return self._page_credentials(user, conn.sandbox, page_id=conn.credentials.external_id)

    def revoke(self, conn: Connection) -> bool:
        """Take back the app's login: `DELETE /me/permissions` with the long-lived user token
        (kept as `refresh_token`); the Page tokens it gave stop working with it. A Page token
        cannot do this, so without a user token nothing is sent."""
        user_token = conn.credentials.refresh_token
        if not user_token:
            return False
        headers = {"Authorization": f"Bearer {user_token}"}
        response = self.revocation(conn, "DELETE", f"{GRAPH}/me/permissions", headers=headers)
        return json_object(response).get("success") is True

    def _long_lived(self, user_token: str, sandbox: bool) -> dict[str, Any]:
        query = {"grant_type": "fb_exchange_token", "client_id": self.app(sandbox).client_id}
        return self._token({**query, "fb_exchange_token": user_token}, sandbox)

    def _token(self, query: Mapping[str, str], sandbox: bool) -> dict[str, Any]:
        """GET /oauth/access_token, with the app secret when one is configured."""
        secret = self.app(sandbox).client_secret
        params = {**query, "client_secret": secret} if secret else dict(query)
        return self.token_request(sandbox, "GET", f"{GRAPH}/oauth/access_token", params=params)

    def _page_credentials(self, user: Mapping[str, Any], sandbox: bool, page_id: str) -> Credentials:
        user_token = str(user["access_token"])
        params = {"fields": "id,name,access_token,tasks"}
        pages = self.call(bare_connection(sandbox, user_token), "GET", "/me/accounts", params=params).get("data") or []
        page = next((p for p in pages if not page_id or str(p.get("id")) == page_id), None)
        if page is None:
            message = "The Facebook user manages no Page this app may publish to."
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="NO_PAGE", error_message=message))
        return self._credentials(page, user_token, int(user.get("expires_in") or 0))

    @staticmethod
    def _credentials(page: Mapping[str, Any], user_token: str, lifetime: int) -> Credentials:
        user_expiry = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime) if lifetime else None
        return Credentials(
            access_token=str(page["access_token"]),
            refresh_token=user_token,
            expires_at=None,  # Page tokens from a long-lived user token do not expire
            external_id=str(page["id"]),
            handle=str(page.get("name", "")),
            display_name=str(page.get("name", "")),
            metadata={"tasks": list(page.get("tasks") or []), "user_token_expires_at": str(user_expiry or "")},
        )
