"""The desktop's settings in the ledger (shared with the CLI): server address, output folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cli.common import OUTPUT_DIR_KEY, SERVER_KEY
from core.controller.config import DEFAULT_SERVER, ControllerConfig
from core.paths import default_output_dir

if TYPE_CHECKING:
    from core.ledger import Ledger


@dataclass(frozen=True)
class AppSettings:
    """Where ComfyUI is, where outputs go, and the controller's caps and limits."""

    server: str
    output_dir: Path
    config: ControllerConfig
    server_configured: bool

    @classmethod
    def load(cls, ledger: Ledger) -> AppSettings:
        server = ledger.settings.get(SERVER_KEY)
        output = ledger.settings.get(OUTPUT_DIR_KEY)
        return cls(
            server=server or DEFAULT_SERVER,
            output_dir=Path(output).expanduser() if output else default_output_dir(),
            config=ControllerConfig.from_settings(ledger),
            # A ledger with jobs was used with a real server (maybe just not running now): it
            # is the artist's, never a reason to fall back to the demo.
            server_configured=bool(server) or ledger.latest_seq() > 0,
        )

    def save(self, ledger: Ledger) -> None:
        ledger.settings.set(SERVER_KEY, self.server)
        ledger.settings.set(OUTPUT_DIR_KEY, str(self.output_dir))
        self.config.save(ledger)
