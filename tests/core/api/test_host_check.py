"""The Host check on every route: a Host that is not the address the API listens on (a page
whose name was made to point at this computer) is refused in JSON; the right one passes."""

from __future__ import annotations

import pytest

from core.api.host_check import host_allowed
from tests.core.api.conftest import Api


@pytest.mark.asyncio
async def test_a_foreign_host_is_refused_and_the_right_one_passes(api: Api) -> None:
    port = api.url.rsplit(":", 1)[1]
    async with api.client() as http:
        right = await http.get("/v1/status")
        named = await http.get("/v1/status", headers={"Host": f"localhost:{port}"})
        rebound = await http.get("/v1/status", headers={"Host": f"evil.example:{port}"})
        wrong_port = await http.get("/v1/openapi.json", headers={"Host": "127.0.0.1:1"})
    assert (right.status_code, named.status_code) == (200, 200)
    assert rebound.status_code == 421
    assert rebound.json()["error"] == "misdirected"
    assert "'evil.example:" in rebound.json()["message"]
    assert wrong_port.status_code == 421  # every route, the public one too


def test_which_hosts_name_the_api() -> None:
    assert host_allowed("127.0.0.1:8190", "127.0.0.1", 8190)
    assert host_allowed("LOCALHOST:8190", "127.0.0.1", 8190)
    assert host_allowed("[::1]:8190", "127.0.0.1", 8190)
    assert not host_allowed("127.0.0.1:8191", "127.0.0.1", 8190)
    assert not host_allowed("127.0.0.1", "127.0.0.1", 8190)
    assert not host_allowed("192.168.1.5:8190", "127.0.0.1", 8190)
    assert not host_allowed("", "127.0.0.1", 8190)
    assert not host_allowed("[::1]x:8190", "127.0.0.1", 8190)
    # --allow-remote on every address: any IP literal with the port, no other name
    assert host_allowed("192.168.1.5:8190", "0.0.0.0", 8190)
    assert host_allowed("[fe80::1]:8190", "::", 8190)
    assert not host_allowed("box.lan:8190", "0.0.0.0", 8190)
    # on one address: that one
    assert host_allowed("192.168.1.5:8190", "192.168.1.5", 8190)
    assert not host_allowed("192.168.1.6:8190", "192.168.1.5", 8190)
    assert host_allowed("10.0.0.1", "10.0.0.1", 80)
