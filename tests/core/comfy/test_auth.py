"""Credentials and TLS: the auth header on every request (HTTP and WebSocket), certificate
verification on unless turned off."""

from __future__ import annotations

import httpx
import pytest

from core.comfy import BasicAuth, BearerAuth, ComfyClient


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("auth", "header"),
    [
        (BearerAuth("s3cret"), "Bearer s3cret"),
        (BasicAuth("ann", "pw"), "Basic YW5uOnB3"),
    ],
)
async def test_auth_header_on_every_request(auth: BearerAuth | BasicAuth, header: str) -> None:
    seen: list[str | None] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(200, json={"queue_running": [], "queue_pending": []})

    async with ComfyClient(
        "https://render.lan:8443", auth=auth, transport=httpx.MockTransport(handle)
    ) as client:
        await client.queue()
        listener = client.listener()
        await listener.aclose()
    assert seen == [header]
    assert "s3cret" not in repr(auth)
    assert "pw'" not in repr(auth)
    assert listener.url.startswith("wss://render.lan:8443/ws?clientId=")


def test_tls_verification_is_on_unless_turned_off() -> None:
    import ssl

    from core.comfy.auth import ssl_context

    assert ssl_context(True).verify_mode == ssl.CERT_REQUIRED
    assert ssl_context(True).check_hostname
    assert ssl_context(False).verify_mode == ssl.CERT_NONE
    mine = ssl.create_default_context()
    assert ssl_context(mine) is mine
    with pytest.raises(FileNotFoundError):
        ssl_context("/nonexistent/ca.pem")
