"""The settings dialog's server check: run in a thread of its own while the GUI runs on qasync,
and why an address does not answer, in the artist's words (the technical error kept aside)."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest
from aiohttp import web

from desktop.settings import server_check
from desktop.settings.server_check import check_servers_waiting
from tests.core.hostile import HostileServer, HostileThread, answer_json


@pytest.fixture
def hostile():
    runner = HostileThread(HostileServer())
    runner.start()
    yield runner.server
    runner.stop()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_port_nothing_listens_on_says_so(qapp) -> None:
    [check] = check_servers_waiting([f"http://127.0.0.1:{_closed_port()}"])
    assert not check.reachable
    assert check.error == "nothing listens on that port (is ComfyUI started?)"
    assert "cannot connect" in check.detail


def test_a_name_no_computer_has_says_so(qapp) -> None:
    [check] = check_servers_waiting(["http://no-such-host.invalid:8188"])
    assert check.error == "no computer of that name was found"


def test_a_web_server_that_is_not_comfyui_says_so(qapp, hostile) -> None:
    [check] = check_servers_waiting([hostile.url])  # it answers 404 to everything
    assert check.error == "a web server answers there, but not ComfyUI"
    assert "HTTP 404" in check.detail
    assert hostile.requests["GET /system_stats"] == 1


def test_a_refused_token_says_so(qapp, hostile) -> None:
    async def refuse(server, request, route):
        return web.Response(status=401, text="Unauthorized")

    hostile.behaviours["GET /system_stats"] = refuse
    [check] = check_servers_waiting([hostile.url], token="wrong")
    assert check.error == "it refused the token"


def test_a_server_that_never_answers_says_how_long_it_was_given(qapp, hostile, monkeypatch) -> None:
    async def never(server, request, route):
        await asyncio.sleep(3600)

    monkeypatch.setattr(server_check, "CHECK_TIMEOUT", httpx.Timeout(0.3))
    hostile.behaviours["GET /system_stats"] = never
    [check] = check_servers_waiting([hostile.url])
    assert check.error == "no answer within 0.3 s"


def test_a_comfyui_answers_with_its_version(qapp, hostile) -> None:
    stats = {"system": {"comfyui_version": "0.3.64"}, "devices": []}
    hostile.behaviours["GET /system_stats"] = answer_json(stats)
    [check] = check_servers_waiting([hostile.url])
    assert check.reachable
    assert check.line() == f"ComfyUI 0.3.64 answers at {hostile.url.split('://')[1]}."
