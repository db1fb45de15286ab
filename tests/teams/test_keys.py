"""The API key format: `sk_<prefix>_<secret><checksum>`, checked without a database."""

from __future__ import annotations

import math
import re
import string

import pytest

from teams import keys

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_SHAPE = re.compile(r"^sk_(?P<prefix>[0-9A-Za-z]{12})_(?P<secret>[0-9A-Za-z]{43})(?P<checksum>[0-9A-Za-z]{6})$")


def _parts(plaintext: str) -> dict[str, str]:
    match = _SHAPE.match(plaintext)
    assert match is not None, plaintext
    return match.groupdict()


def _other_char(char: str) -> str:
    """A different character of the same kind, so only the content changes, not the shape."""
    if char in _BASE62:
        return _BASE62[(_BASE62.index(char) + 1) % len(_BASE62)]
    return "x"


def _base62_value(text: str) -> int:
    value = 0
    for char in text:
        value = value * 62 + _BASE62.index(char)
    return value


def test_generated_key_starts_with_sk_and_has_the_documented_shape():
    generated = keys.generate()

    assert generated.plaintext.startswith("sk_")
    assert _parts(generated.plaintext)["prefix"] == generated.prefix


def test_generated_keys_and_prefixes_are_unique():
    generated = [keys.generate() for _ in range(200)]

    assert len({g.plaintext for g in generated}) == 200
    assert len({g.prefix for g in generated}) == 200


def test_a_generated_key_parses_back_to_its_prefix():
    generated = keys.generate()

    assert keys.parse_prefix(generated.plaintext) == generated.prefix


def test_any_single_changed_character_is_refused():
    plaintext = keys.generate().plaintext

    for position, char in enumerate(plaintext):
        changed = plaintext[:position] + _other_char(char) + plaintext[position + 1 :]
        assert keys.parse_prefix(changed) is None, f"change at {position} accepted: {changed}"


def test_a_changed_secret_character_fails_the_checksum_though_the_shape_is_right():
    plaintext = keys.generate().plaintext
    position = len("sk_") + keys.PREFIX_LENGTH + 1 + 10  # inside the secret
    changed = plaintext[:position] + _other_char(plaintext[position]) + plaintext[position + 1 :]

    assert _SHAPE.match(changed) is not None
    assert keys.parse_prefix(changed) is None


@pytest.mark.parametrize("cut", [1, 6, 7, 30, 50, 63])
def test_a_truncated_key_is_refused(cut):
    plaintext = keys.generate().plaintext

    assert keys.parse_prefix(plaintext[:-cut]) is None


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda k: "pk_" + k[3:], id="pk_"),
        pytest.param(lambda k: "SK_" + k[3:], id="upper SK_"),
        pytest.param(lambda k: "sk-" + k[3:], id="sk-"),
        pytest.param(lambda k: k[3:], id="no sk_"),
        pytest.param(lambda k: "xsk_" + k[3:], id="leading char"),
        pytest.param(lambda k: " " + k, id="leading space"),
        pytest.param(lambda k: k + "\n", id="trailing newline"),
        pytest.param(lambda k: k + "A", id="extra char"),
        pytest.param(lambda k: k.replace("_", "-"), id="dashes"),
        pytest.param(lambda k: k[:20] + "é" + k[21:], id="non-ascii"),
        pytest.param(lambda k: "", id="empty"),
    ],
)
def test_keys_with_the_wrong_prefix_or_shape_are_refused(mangle):
    assert keys.parse_prefix(mangle(keys.generate().plaintext)) is None


def test_stored_hash_is_not_the_plaintext_and_reveals_no_part_of_it():
    generated = keys.generate()
    parts = _parts(generated.plaintext)

    assert generated.secret_hash != generated.plaintext
    assert parts["secret"] not in generated.secret_hash
    assert re.fullmatch(r"[0-9a-f]{64}", generated.secret_hash)


def test_matches_only_the_right_key():
    generated = keys.generate()
    other = keys.generate()

    assert keys.matches(generated.plaintext, generated.secret_hash) is True
    assert keys.matches(other.plaintext, generated.secret_hash) is False
    assert keys.matches(generated.plaintext[:-1], generated.secret_hash) is False
    assert keys.matches(generated.secret_hash, generated.secret_hash) is False


def test_secret_part_is_43_base62_characters_worth_at_least_256_bits():
    secrets_ = [_parts(keys.generate().plaintext)["secret"] for _ in range(64)]

    assert all(len(secret) == 43 for secret in secrets_)
    assert math.log2(62) * 43 >= 256
    # The secret really carries 256 random bits: with 64 keys, some value reaches the top of
    # the 256-bit range (a short or zero-padded secret never would).
    assert max(_base62_value(secret).bit_length() for secret in secrets_) >= 250
    assert all(_base62_value(secret) < 2**256 for secret in secrets_)
