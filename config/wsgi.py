from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from config.middleware import SizedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Chunked request bodies get a length before Django sees them (config.middleware).
application = SizedBodies(get_wsgi_application())
