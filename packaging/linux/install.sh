#!/bin/sh
# Install Batchline from this folder for the current user (default) or system-wide (--system).
#   ./install.sh              ~/.local/opt/Batchline, ~/.local/bin/batchline, menu entry, icon
#   sudo ./install.sh --system   /opt/Batchline, /usr/local/bin/batchline, menu entry, icon
#   ./install.sh --uninstall  (add --system for a system-wide install)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=user action=install
for arg in "$@"; do
  case "$arg" in
    --system) mode=system ;;
    --uninstall) action=uninstall ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done
if [ "$mode" = system ]; then
  opt=/opt bin=/usr/local/bin share=/usr/local/share
else
  data=${XDG_DATA_HOME:-$HOME/.local/share}
  opt=$HOME/.local/opt bin=$HOME/.local/bin share=$data
fi
app=$opt/Batchline
apps=$share/applications
icons=$share/icons/hicolor

if [ "$action" = uninstall ]; then
  rm -rf "$app" "$bin/batchline" "$apps/batchline.desktop" \
    "$icons/256x256/apps/batchline.png" "$icons/scalable/apps/batchline.svg"
  echo "Batchline removed (your jobs and settings stay in ~/.local/share/Batchline)."
  exit 0
fi

mkdir -p "$opt" "$bin" "$apps" "$icons/256x256/apps" "$icons/scalable/apps"
rm -rf "$app.new"
cp -R "$here/Batchline" "$app.new"
rm -rf "$app"
mv "$app.new" "$app"
ln -sf "$app/Batchline" "$bin/batchline"
cp "$here/batchline.png" "$icons/256x256/apps/batchline.png"
cp "$here/batchline.svg" "$icons/scalable/apps/batchline.svg"
# Absolute paths: ~/.local/bin is not on every desktop session's PATH.
sed -e "s|^Exec=.*|Exec=\"$app/Batchline\"|" -e "s|^TryExec=.*|TryExec=$app/Batchline|" \
  "$here/batchline.desktop" > "$apps/batchline.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" || true
echo "Batchline installed in $app"
echo "Start it from your applications menu, or run: $bin/batchline"
case ":$PATH:" in *":$bin:"*) ;; *) echo "(add $bin to your PATH to type just 'batchline')" ;; esac
