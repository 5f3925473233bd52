"""The real-browser check of "Send to Batchline" (needs a real ComfyUI; never run by the suite).

Installs the extension into a real ComfyUI's custom_nodes, starts that ComfyUI (or uses one
already running that has loaded it), starts `batchline serve` with its API on a free port and a
token for "comfyui" in a fresh data folder, then drives Debian's headless chromium with selenium
as an artist would: opens the editor, loads a workflow under a tab name, clicks the logo menu →
Workflow → "Send to Batchline", answers the extension's two questions (Batchline's address, the
token) in ComfyUI's own dialog, waits for the editor's message, then sends again from the canvas
context menu (right-click), and checks that the preset is in Batchline (`batchline preset list
--json`). Screenshots go to --shots (default /work/notes/ext_*.png).

Usage (the real ComfyUI of ../shared/tools/real-comfyui; selenium: `pip install -e '.[browser]'`):

    .venv/bin/python bench/real_comfyui_send.py --peer-dir /work/peer-comfyui \\
        --tiny-dir /work/tiny-X --port 8189

`--batchline URL --token T` sends to a Batchline (or stand-in) already listening instead of
starting one; the preset check is then left to the caller. Exit 0 when every step held.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.comfyui_extension import install  # noqa: E402
from core.ledger import Ledger  # noqa: E402
from core.ledger.settings import SERVER  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

WORKFLOW = ROOT / "tests" / "data" / "presets" / "editor_comfyui_default.json"
START_SH = ROOT.parent / "shared" / "tools" / "real-comfyui" / "start.sh"
SENT = "Sent to Batchline as"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-dir", type=Path, default=Path("/work/peer-comfyui"))
    parser.add_argument("--tiny-dir", type=Path, help="start ComfyUI with this TINY_DIR")
    parser.add_argument("--start-sh", type=Path, default=START_SH)
    parser.add_argument("--port", type=int, default=8189, help="ComfyUI's port")
    parser.add_argument("--batchline", help="a Batchline API already listening (skip serve)")
    parser.add_argument("--token", help="its token (with --batchline)")
    parser.add_argument("--name", default="Fox portrait", help="the workflow tab's name")
    parser.add_argument("--workflow", type=Path, default=WORKFLOW)
    parser.add_argument("--shots", default="/work/notes/ext_", help="screenshot path prefix")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()

    comfy_url = f"http://127.0.0.1:{args.port}"
    print(install(args.peer_dir / "ComfyUI").sentence())
    with contextlib.ExitStack() as stack:
        if args.tiny_dir:
            stack.enter_context(comfyui(args, comfy_url))
        if not loaded_extension(comfy_url):
            print(f"the ComfyUI at {comfy_url} has not loaded the extension: restart it")
            return 1
        if args.batchline:
            address, token, home = args.batchline, args.token or "", None
        else:
            address, token, home = stack.enter_context(batchline(comfy_url))
        print(f"Batchline API at {address}")
        browser_send(args, comfy_url, address, token)
        if home is not None:
            presets = run_batchline(home, comfy_url, "preset", "list", "--json")
            print(f"batchline preset list --json: {presets.strip()}")
            if args.name not in presets:
                print(f"the preset {args.name!r} is not in Batchline")
                return 1
            versions = json.loads(
                run_batchline(home, comfy_url, "preset", "versions", args.name, "--json")
            )
            print(f"batchline preset versions {args.name!r} --json: {versions}")
            if len(versions) != 2:
                print("the tweaked workflow sent again is not the preset's second version")
                return 1
    print(
        "ok: sent from the editor's menu, then tweaked and sent from the canvas menu: one "
        "preset in Batchline with two versions"
    )
    return 0


@contextlib.contextmanager
def comfyui(args: argparse.Namespace, url: str) -> Iterator[None]:
    """Start the real ComfyUI with start.sh; stop it (by its pid) afterwards."""
    tiny: Path = args.tiny_dir
    tiny.mkdir(parents=True, exist_ok=True)
    models = tiny / "models"
    if not models.exists():
        models.symlink_to(Path("/work/tiny-comfyui/models"))
    env = {**os.environ, "PEER_DIR": str(args.peer_dir), "TINY_DIR": str(tiny)}
    env["PORT"] = str(args.port)
    subprocess.run(["bash", str(args.start_sh)], env=env, check=True)
    pid = int((tiny / "comfy.pid").read_text())
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        print(f"stopped the ComfyUI at {url} (pid {pid})")


def loaded_extension(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/extensions", timeout=10) as answer:
        scripts = json.load(answer)
    return "/extensions/batchline-send/batchline.js" in scripts


def run_batchline(home: Path, comfy_url: str, *words: str) -> str:
    command = [sys.executable, "-m", "cli.main", "--data-dir", str(home), "--server", comfy_url]
    done = subprocess.run(
        [*command, *words], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


@contextlib.contextmanager
def batchline(comfy_url: str) -> Iterator[tuple[str, str, Path]]:
    """`batchline serve` on a free port in a fresh data folder whose Settings name the ComfyUI,
    with a token for "comfyui"."""
    with tempfile.TemporaryDirectory(prefix="batchline-ext-") as tmp:
        home = Path(tmp) / "home"
        token = run_batchline(home, comfy_url, "tokens", "create", "comfyui").strip()
        with Ledger(home) as ledger:  # in Settings, as the artist would: CORS lets it in
            SERVER.set(ledger, comfy_url)
        log = Path(tmp) / "serve.out"
        command = [sys.executable, "-m", "cli.main", "--data-dir", str(home)]
        command += ["--server", comfy_url, "serve", "--listen", "127.0.0.1:0"]
        with log.open("w") as out:
            process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            address = wait_for(lambda: listening(log), 60, f"serve never listened ({log})")
            yield address, token, home
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


def listening(log: Path) -> str | None:
    for line in log.read_text().splitlines():
        if line.startswith("listening on "):
            return line.removeprefix("listening on ").strip()
    return None


def wait_for(check: Callable[[], Any], seconds: float, failure: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    raise SystemExit(failure)


def browser_send(args: argparse.Namespace, comfy_url: str, address: str, token: str) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--window-size=1600,1000", "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(args.chromedriver))
    shots = args.shots

    def shown(selector: str) -> list[Any]:
        return [e for e in driver.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()]

    def menu_item(text: str) -> Any:
        return wait_for(
            lambda: next((e for e in shown("[role=menuitem]") if e.text == text), None),
            10,
            f"no menu item {text!r}",
        )

    def answer_dialog(text: str, shot: str) -> None:
        field = wait_for(lambda: shown(".p-dialog input"), 10, "the extension asked nothing")[0]
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(text)
        driver.save_screenshot(f"{shots}{shot}.png")
        field.send_keys(Keys.ENTER)
        time.sleep(0.5)

    def toast() -> str:
        found = shown(".p-toast-message")
        return "\n".join(e.text for e in found)

    try:
        driver.get(comfy_url + "/")
        wait_for(
            lambda: driver.execute_script(
                "return !!(window.app && app.graph && app.extensionManager?.workflow)"
            ),
            60,
            "the editor never loaded",
        )
        time.sleep(2)
        for close in shown(".p-dialog-close-button"):  # the first-run templates dialog
            close.click()
        driver.execute_async_script(  # as a first-time user: the extension must ask
            "const done = arguments[arguments.length - 1]; const s = app.extensionManager.setting;"
            "Promise.all([s.set('Batchline.Send.Address', ''), s.set('Batchline.Send.Token', '')])"
            ".then(() => done())"
        )
        graph = json.loads(args.workflow.read_text("utf-8"))
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "app.loadGraphData(arguments[0], true, true, arguments[1]).then(() => done())",
            graph,
            args.name,
        )
        time.sleep(1)
        driver.save_screenshot(f"{shots}1_loaded.png")

        shown(".comfyui-logo-wrapper")[0].click()
        time.sleep(0.7)  # the menu slides open
        ActionChains(driver).move_to_element(menu_item("Workflow")).perform()
        time.sleep(0.7)
        send = menu_item("Send to Batchline")
        driver.save_screenshot(f"{shots}2_menu.png")
        send.click()
        answer_dialog(address, "3_ask_address")
        answer_dialog(token, "4_ask_token")
        said = wait_for(lambda: SENT in toast() and toast(), 30, f"no {SENT!r}: {toast()!r}")
        driver.save_screenshot(f"{shots}5_sent.png")
        print(f"the editor said: {said!r}")
        kept = driver.execute_script(
            "const s = app.extensionManager.setting;"
            "return [s.get('Batchline.Send.Address'), !!s.get('Batchline.Send.Token')]"
        )
        if kept != [address, True]:
            raise SystemExit(f"the settings were not kept: {kept}")
        for close in shown(".p-toast-close-button"):
            close.click()
        time.sleep(0.5)

        # The artist tweaks the workflow (the sampler's steps), then sends it again: a new
        # version of the same preset, not a second preset.
        driver.execute_script(
            "const n = app.graph._nodes.find(n => n.type === 'KSampler');"
            "n.widgets.find(w => w.name === 'steps').value = 7; app.graph.setDirtyCanvas(true);"
        )
        canvas = shown("#graph-canvas")[0]  # right-click on empty canvas, bottom left
        ActionChains(driver).move_to_element_with_offset(
            canvas, -600, 300
        ).context_click().perform()
        item = wait_for(
            lambda: next(
                (
                    e
                    for e in shown(".litecontextmenu .litemenu-entry")
                    if e.text == "Send to Batchline"
                ),
                None,
            ),
            10,
            "no 'Send to Batchline' in the canvas menu",
        )
        driver.save_screenshot(f"{shots}6_canvas_menu.png")
        item.click()
        if shown(".p-dialog input"):
            raise SystemExit("the extension asked again although the settings were kept")
        said = wait_for(lambda: toast(), 30, "no message after the canvas menu's send")
        driver.save_screenshot(f"{shots}7_sent_again.png")
        print(f"the editor said again: {said!r}")
        if SENT not in said:
            raise SystemExit(f"the second send failed: {said!r}")
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
