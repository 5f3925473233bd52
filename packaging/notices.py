"""License texts and a third-party notice for the bundle, from the installed distributions."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
LICENSE_NAME = re.compile(r"(licen[cs]e|copying|notice)", re.IGNORECASE)
# PySide6/shiboken6 wheels carry no license files: ship the LGPLv3 (and the GPLv3 it extends).
QT_TEXTS = (HERE / "licenses" / "LGPL-3.0.txt", HERE / "licenses" / "GPL-3.0.txt")
QT_DISTRIBUTIONS = frozenset({"pyside6-essentials", "shiboken6"})
QT_NOTE = """\
Qt 6 and Qt for Python (PySide6, shiboken6) are used under the GNU LGPL version 3
(LGPL-3.0.txt, with GPL-3.0.txt). They are shipped as unmodified shared libraries in
_internal/PySide6 and _internal/shiboken6, which you may replace with your own builds of the
same version. Sources: https://download.qt.io/official_releases/qt/ and
https://download.qt.io/official_releases/QtForPython/ (or ask the distributor of this build).
"""


def runtime_distributions(root: str = "batchline") -> list[metadata.Distribution]:
    """``root`` and everything it needs at run time (no extras), each once."""
    seen: dict[str, metadata.Distribution] = {}
    pending = [root]
    while pending:
        name = _canonical(pending.pop())
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[name] = dist
        pending.extend(_plain_requirements(dist))
    return sorted(seen.values(), key=lambda d: _canonical(d.metadata["Name"]))


def _plain_requirements(dist: metadata.Distribution) -> list[str]:
    """Requirement names without an ``extra ==`` marker that apply to this platform."""
    names = []
    for requirement in dist.requires or []:
        spec, _, marker = requirement.partition(";")
        if "extra" in marker or not _marker_applies(marker):
            continue
        names.append(re.split(r"[\s<>=!~\[(]", spec.strip(), maxsplit=1)[0])
    return names


def _marker_applies(marker: str) -> bool:
    marker = marker.strip()
    if not marker:
        return True
    try:
        from packaging.markers import Marker
    except ImportError:  # without packaging, keep the requirement (a few extra notices)
        return True
    return Marker(marker).evaluate()


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def license_files(dist: metadata.Distribution) -> list[Path]:
    files = [f for f in dist.files or [] if LICENSE_NAME.search(f.name)]
    return [Path(str(dist.locate_file(f))) for f in files if "dist-info" in str(f)]


def python_license() -> Path | None:
    base = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (base / "lib" / version / "LICENSE.txt", base / "LICENSE.txt"):
        if candidate.exists():
            return candidate
    return None


def notice_text(dists: list[metadata.Distribution]) -> str:
    lines = ["Batchline bundles these components (name, version, license):", ""]
    py = sys.version.split()[0]
    lines.append(f"  Python {py}: PSF-2.0 (licenses/Python/LICENSE.txt)")
    for dist in dists:
        meta = dist.metadata
        licence = meta.get("License-Expression") or (meta.get("License") or "").split("\n")[0]
        lines.append(f"  {meta['Name']} {dist.version}: {licence or 'see its license files'}")
    return "\n".join([*lines, "", QT_NOTE])


def bundle_datas(workdir: Path) -> list[tuple[str, str]]:
    """(source, bundle folder) pairs for PyInstaller's ``datas``: notice and license texts."""
    workdir.mkdir(parents=True, exist_ok=True)
    dists = runtime_distributions()
    notice = workdir / "THIRD-PARTY-NOTICES.txt"
    notice.write_text(notice_text(dists), encoding="utf-8")
    datas = [(str(notice), "licenses")]
    for dist in dists:
        name = dist.metadata["Name"]
        files = license_files(dist)
        if _canonical(name) in QT_DISTRIBUTIONS:
            files = [p for p in QT_TEXTS if p.exists()]
        datas.extend((str(path), f"licenses/{name}") for path in files)
    python = python_license()
    if python is not None:
        datas.append((str(python), "licenses/Python"))
    return datas


if __name__ == "__main__":
    print(notice_text(runtime_distributions()))
