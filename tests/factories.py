"""factory_boy factories. Teams and keys are made through the services, as production makes them."""

from __future__ import annotations

import factory
from django.contrib.auth.models import User

from accounts.models import Platform, SocialAccount
from teams.models import Plan


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")


class PlanFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Plan

    code = factory.Sequence(lambda n: f"plan-{n}")
    name = factory.Sequence(lambda n: f"Plan {n}")


class SocialAccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SocialAccount

    platform = Platform.X
    external_id = factory.Sequence(lambda n: f"ext-{n}")
    handle = factory.Sequence(lambda n: f"handle{n}")
    access_token = "access-token-value"
    refresh_token = "refresh-token-value"
    sandbox = True
