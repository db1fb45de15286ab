from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config import crypto


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored secret (OAuth tokens, webhook secrets: every EncryptedTextField) with the "
        "first key of FIELD_ENCRYPTION_KEYS. Run it after listing the new key first and restarting every "
        "process; safe to repeat. Prints counts, never a value."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=500, help="Rows per transaction (default 500).")

    def handle(self, *args: Any, batch_size: int, **options: Any) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")
        rotations = crypto.rotate_encrypted_fields(batch_size=batch_size)
        for r in rotations:
            self.stdout.write(
                f"{r.column}: {r.rotated} re-encrypted, {r.current} already current, "
                f"{r.changed} changed meanwhile, {r.unreadable} unreadable"
            )
        unreadable = sum(r.unreadable for r in rotations)
        if unreadable:
            raise CommandError(
                f"{unreadable} stored value(s) could not be decrypted with any key of FIELD_ENCRYPTION_KEYS; "
                "keep the old key listed (after the new one) and run again."
            )
        if any(r.changed for r in rotations):
            self.stdout.write("Some values changed during the run: run it again to be sure they use the new key.")
