"""A local stand-in for the nine platform APIs, for development, demos and tests.

It serves each platform under its real host names and paths (`/{host}/{path}`, see
CONTRACT.md "Sandbox addressing"), validates requests as strictly as the platform does, and
offers a control API under `/_sandbox/` to queue outcomes, list posts, set metrics and reset.
`/_sandbox/posts/{platform}/{post_id}` is a page showing one post as the stand-in stored it
(sandbox/viewer.py): the dashboard's live link of a sandbox account's post opens it.
It is standalone: no Django, state in memory, started by `make run` as `python -m sandbox`.
"""
