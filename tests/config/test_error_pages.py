"""The dashboard's error pages: 404, 403 and 500 are styled pages of the dashboard with a way
back; the API keeps answering its error object."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import Client

pytestmark = pytest.mark.django_db


def _as(client, persona):
    client.force_login(persona.user)
    return client


def test_an_unknown_page_is_a_styled_404_with_the_navigation_and_a_way_back(client, owner):
    response = _as(client, owner).get("/dashboard/no-such-page/")

    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in page
    assert 'href="/">Back to the dashboard</a>' in page
    assert '<nav aria-label="Main">' in page
    assert "dashboard/dashboard.css" in page


def test_another_teams_publish_is_the_same_404_page(client, owner, outsider):
    response = _as(client, owner).get(f"/dashboard/publishes/?team={outsider.team.pk}")

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.content.decode()


def test_a_signed_out_visitor_gets_the_404_page_without_the_navigation(client, db):
    response = client.get("/no-such-page/")

    page = response.content.decode()
    assert response.status_code == 404
    assert 'href="/">Back to the dashboard</a>' in page
    assert '<nav aria-label="Main">' not in page


def test_the_api_answers_404_with_its_error_object(client, db):
    response = client.get("/api/v1/no-such-thing")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_a_forbidden_action_is_a_styled_403_with_a_way_back(client, member):
    response = _as(client, member).get(f"/dashboard/settings/keys/?team={member.team.pk}")

    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>Not allowed</h1>" in page
    assert 'href="/">Back to the dashboard</a>' in page
    assert '<nav aria-label="Main">' in page


@pytest.mark.urls("tests.config.error_urls")
def test_a_crash_is_a_styled_500_with_ways_back(owner, settings):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(owner.user)

    response = client.get("/broken/")

    page = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Something went wrong</h1>" in page
    assert 'href="/">Back to the dashboard</a>' in page
    assert 'href="/dashboard/compose/">Compose</a>' in page
    assert "dashboard/dashboard.css" in page


@pytest.mark.urls("tests.config.error_urls")
def test_a_crash_in_the_api_is_its_error_object(db):
    client = Client(raise_request_exception=False)

    response = client.get("/api/v1/broken")

    assert response.status_code == 500
    assert response.json()["error"]["type"] == "internal_error"


def test_the_500_page_renders_without_a_request_or_the_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        page = render_to_string("500.html")

    assert "<h1>Something went wrong</h1>" in page
    assert 'href="/">Back to the dashboard</a>' in page
