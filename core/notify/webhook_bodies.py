"""A webhook's address checked, and its body in each template: Batchline's own JSON, or the
shape ntfy, Discord and Slack read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.errors import InputError

TEMPLATES = ("json", "ntfy", "discord", "slack")
MAX_URL = 2000
DISCORD_MAX = 2000  # characters of a message's content
_NTFY_TAGS = {"finished": ["white_check_mark"], "failed": ["x"], "attention": ["warning"]}


@dataclass(frozen=True)
class WebhookRequest:
    """One POST: where, and its JSON body."""

    url: str
    body: dict[str, Any]


def checked_webhook(url: str, template: str = "json") -> tuple[str, str]:
    """The address and template, as given, when Batchline can send to them.

    Raises:
        InputError: an address that is not http(s)://host..., or an unknown template.
    """
    url = url.strip()
    if template not in TEMPLATES:
        raise InputError(
            f"webhook template must be one of {', '.join(TEMPLATES)}, not {template!r}"
        )
    if len(url) > MAX_URL:
        raise InputError(f"the webhook address is longer than {MAX_URL} characters")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise InputError("the webhook address has a space or a control character in it")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port out of range raises here)
    except ValueError:
        raise InputError(f"the webhook address {url!r} is not a valid address") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"the webhook address must start with http:// or https://, not {url!r}")
    if template == "ntfy" and not parts.path.strip("/"):
        raise InputError("an ntfy webhook address names its topic: https://ntfy.sh/TOPIC")
    return url, template


def webhook_request(url: str, template: str, news: dict[str, Any]) -> WebhookRequest:
    """The POST that tells ``news`` (``BatchNews.to_json``) in ``template``."""
    title, text = str(news.get("title", "")), str(news.get("text", ""))
    if template == "discord":
        content = f"**{title}**\n{text}"
        return WebhookRequest(url, {"content": content[:DISCORD_MAX]})
    if template == "slack":
        return WebhookRequest(url, {"text": f"*{title}*\n{text}"})
    if template == "ntfy":  # ntfy's JSON publishing: to the server's root, the topic inside
        parts = urlsplit(url)
        topic = parts.path.strip("/")
        root = urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
        body: dict[str, Any] = {"topic": topic, "title": title, "message": text}
        body["tags"] = _NTFY_TAGS.get(str(news.get("state")), ["information_source"])
        return WebhookRequest(root, body)
    return WebhookRequest(url, news)
