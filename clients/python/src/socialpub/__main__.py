"""`python -m socialpub`, the same as the `socialpub` command."""

from socialpub.cli import entry

entry()
