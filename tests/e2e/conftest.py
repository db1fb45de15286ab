import os

# Playwright's sync API runs an event loop in the test thread; the tests' own ORM calls are
# still synchronous, which Django would otherwise refuse (pytest-django's advice for Playwright).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
