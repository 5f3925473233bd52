"""A server setting or --server value names one ComfyUI or several."""

from __future__ import annotations

from core.controller import server_list


def test_server_lists_split_on_commas_and_spaces() -> None:
    assert server_list("http://a:8188") == ["http://a:8188"]
    assert server_list(" http://a:8188, http://b:8188 http://a:8188,") == [
        "http://a:8188",
        "http://b:8188",
    ]
    assert server_list("  ") == []
