"""A webhook's address checked, and its body in the shapes ntfy, Discord and Slack read."""

from __future__ import annotations

import pytest

from core.errors import InputError
from core.notify.webhook_bodies import checked_webhook, webhook_request

NEWS = {"title": "Batch finished", "text": "Fox: 2 done", "state": "finished", "batch": {}}


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://example.org/x", "must start with http:// or https://"),
        ("file:///etc/passwd", "must start with http:// or https://"),
        ("example.org/hook", "must start with http:// or https://"),
        ("http:///nohost", "must start with http:// or https://"),
        ("http://example.org:99999/", "is not a valid address"),
        ("http://exa mple.org/", "a space or a control character"),
        ("http://example.org/" + "a" * 2000, "longer than 2000 characters"),
    ],
)
def test_only_http_and_https_addresses_are_taken(url: str, said: str) -> None:
    with pytest.raises(InputError, match=said):
        checked_webhook(url)


def test_a_good_address_and_the_templates() -> None:
    assert checked_webhook(" https://example.org/h ") == ("https://example.org/h", "json")
    with pytest.raises(InputError, match="one of json, ntfy, discord, slack"):
        checked_webhook("https://example.org/h", "teams")
    with pytest.raises(InputError, match="names its topic"):
        checked_webhook("https://ntfy.sh/", "ntfy")


def test_each_template_s_body() -> None:
    url = "https://hooks.example.org/x"
    assert webhook_request(url, "json", NEWS).body == NEWS
    assert webhook_request(url, "discord", NEWS).body == {
        "content": "**Batch finished**\nFox: 2 done"
    }
    assert webhook_request(url, "slack", NEWS).body == {"text": "*Batch finished*\nFox: 2 done"}
    ntfy = webhook_request("https://ntfy.sh/my-renders", "ntfy", NEWS)
    assert ntfy.url == "https://ntfy.sh/"
    assert ntfy.body == {
        "topic": "my-renders",
        "title": "Batch finished",
        "message": "Fox: 2 done",
        "tags": ["white_check_mark"],
    }


def test_a_long_discord_message_is_cut_to_what_discord_takes() -> None:
    long = {**NEWS, "text": "x" * 5000}
    assert len(webhook_request("https://d/x", "discord", long).body["content"]) == 2000
