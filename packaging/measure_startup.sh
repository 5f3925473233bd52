#!/bin/sh
# Launch-to-window time of the bundle: start `Batchline gui --demo` under Xvfb (xcb platform)
# and poll X11 until its main window is mapped. Needs xvfb-run and xwininfo (x11-utils).
# Usage: packaging/measure_startup.sh [RUNS] [BINARY]   (default: 5 runs of dist/Batchline/Batchline)
set -eu
runs=${1:-5}
binary=$(cd "$(dirname "${2:-dist/Batchline/Batchline}")" && pwd)/$(basename "${2:-dist/Batchline/Batchline}")
if [ -z "${MEASURE_INSIDE_XVFB:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" env MEASURE_INSIDE_XVFB=1 sh "$0" "$runs" "$binary"
fi
title="Batchline — Demo server"
now_ms() { date +%s%3N; }
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  home=$(mktemp -d)  # a first start each time: empty ledger, sample presets loaded, simulator
  start=$(now_ms)
  HOME=$home BATCHLINE_HOME=$home/data QT_QPA_PLATFORM=xcb "$binary" gui --demo >"$home/out.log" 2>&1 &
  pid=$!
  until xwininfo -name "$title" 2>/dev/null | grep -q "IsViewable"; do
    kill -0 "$pid" 2>/dev/null || { echo "run $i: the app exited before showing its window:" >&2; cat "$home/out.log" >&2; exit 1; }
    [ $(($(now_ms) - start)) -lt 30000 ] || { echo "run $i: no window after 30 s" >&2; kill "$pid"; exit 1; }
    sleep 0.02
  done
  echo "run $i: window shown $(($(now_ms) - start)) ms after launch"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$home"
done
