"""`manage.py mcp`'s key: from SOCIALPUB_API_KEY or a file, never from the command line, where
every user of the machine can read it. (The server it then starts: test_stdio.)"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from teams.keys import parse_prefix
from teams.models import ApiKey
from teams.services import api_key_revoke

pytestmark = pytest.mark.django_db

WAYS = "Set SOCIALPUB_API_KEY or pass --api-key-file PATH."


@pytest.mark.parametrize("given", [["--api-key", "sk_in_argv"], ["--api-key=sk_in_argv"], ["--api-key"]])
def test_a_key_on_the_command_line_is_refused_with_the_ways_to_pass_one(given):
    with pytest.raises(CommandError) as refused:
        call_command("mcp", *given)
    assert WAYS in str(refused.value)
    assert "sk_in_argv" not in str(refused.value)


def test_the_key_file_is_read_and_its_key_checked(owner, tmp_path):
    key = owner.key_with("posts:read")
    api_key_revoke(api_key=ApiKey.objects.get(prefix=parse_prefix(key)))
    (tmp_path / "key").write_text(f"{key}\n")
    with pytest.raises(CommandError) as refused:
        call_command("mcp", "--api-key-file", str(tmp_path / "key"))
    assert str(refused.value) == "The API key was refused: The API key has been revoked."


def test_a_missing_or_empty_key_file_is_named(tmp_path):
    absent, blank = tmp_path / "absent", tmp_path / "blank"
    blank.write_text("\n")
    with pytest.raises(CommandError) as missing:
        call_command("mcp", "--api-key-file", str(absent))
    assert str(missing.value) == f"Cannot read the API key file {absent}: No such file or directory."
    with pytest.raises(CommandError) as empty:
        call_command("mcp", "--api-key-file", str(blank))
    assert str(empty.value) == f"The API key file {blank} is empty."
