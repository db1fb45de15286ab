from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import login_throttle, selectors, services
        from teams import moves, usage

        # First of the movers: merging an account re-points the rows of the apps above.
        moves.register(services.move_to_team, order=10)
        usage.register("social_accounts", selectors.accounts_counted)
        del login_throttle  # imported for its signal receivers
