"""dmgbuild settings: Batchline.app next to an Applications link, in a compressed .dmg."""

# Used as: dmgbuild -s packaging/macos/dmg_settings.py -D app=dist/Batchline.app \
#              "Batchline" dist/Batchline-<version>-macos.dmg
# from the repository root; dmgbuild runs this file with `defines` (the -D values) in its
# namespace, so paths are relative to the current folder.
# ruff: noqa: F821

import os.path

application = defines.get("app", "dist/Batchline.app")
appname = os.path.basename(application)

# The volume: compressed, read-only (UDZO works on macOS 10.11+; ULFO/ULMO are smaller).
format = defines.get("format", "UDZO")
filesystem = "HFS+"
size = None  # computed from the contents
files = [application]
symlinks = {"Applications": "/Applications"}
icon = defines.get("icon", os.path.join("resources", "batchline.icns"))

# The Finder window: the app on the left, drag it onto Applications on the right.
background = "builtin-arrow"
window_rect = ((200, 120), (640, 320))
default_view = "icon-view"
show_status_bar = False
show_tab_view = False
show_toolbar = False
show_pathbar = False
show_sidebar = False
show_icon_preview = False
include_icon_view_settings = "auto"
include_list_view_settings = "auto"
arrange_by = None
icon_size = 128
text_size = 13
icon_locations = {appname: (160, 150), "Applications": (480, 150)}
hide_extensions = [appname]
license = None
