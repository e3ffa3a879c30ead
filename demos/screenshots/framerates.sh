#!/usr/bin/env bash
# Every scene's frame rate in the viewer: in a live 1280 x 720 window (4x multisampled, the
# simulation on its own thread, stopped with a real Escape key press after SECONDS) and in
# test mode (300 fixed 1/60 s steps, one per drawn frame). Prints a Markdown table from the
# lines the viewer writes when it ends (pbd-viewer: summary ...), with the load average of
# the machine beside each row (the pictures are drawn by the CPU, so other work shows); the
# output is docs/viewer-speed.md.
# usage: demos/screenshots/framerates.sh [BUILD_DIR] [SECONDS]   (default build, 8 s; without
# a display it runs itself under xvfb-run; needs xdotool)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
seconds="${2:-8}"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s '-screen 0 1280x720x24' bash "$0" "$build" "$seconds"
fi
viewer="$build/demos/pbd-viewer"
. tests/viewer_window.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
summary() {  # fps, longest frame, real-time share from the summary line in $log
  sed -n 's/.*summary [^:]*: \([0-9]*\) frames drawn in [0-9.]* s (\([0-9.]*\) fps, longest frame \([0-9.]*\) ms); [0-9.]* s simulated (\([0-9.]*\)x real time).*/\2 | \3 | \4/p' "$log"
}
cat <<'TEXT'
# The viewer's frame rates

Written by `bash demos/screenshots/framerates.sh > docs/viewer-speed.md`; do not edit by hand.
Every scene at its defaults, first in a live 1280 x 720 window (4x multisampled; the steps run
on a thread of their own; a real Escape key press after a few seconds ends it), then in test
mode (300 fixed 1/60 s steps, one per drawn frame, no multisampling). The figures are the
line the viewer prints when it ends. "Speed" is simulated time over wall time: below 1 the
scene plays in slow motion because its steps take longer than 1/60 s. Without a GPU, Mesa's
software renderer draws on the same two cores as the simulation, so the drawing sets most
frame rates here. The longest frame leaves out the first one drawn.

TEXT
echo "- commit: \`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores, OpenGL: $(glxinfo -B 2>/dev/null | sed -n 's/.*OpenGL renderer string: //p' | head -n 1)"
echo "- build: \`$build\` ($(meson introspect --buildoptions "$build" 2>/dev/null | python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))' 2>/dev/null || echo "build type unknown"))"
echo
echo "| scene | live fps | live longest frame ms | live speed (x real time) | test-mode fps | test-mode longest frame ms | load average before |"
echo "|---|---|---|---|---|---|---|"
for scene in $("$build/demos/pbd-sim" --list); do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  "$viewer" --scene "$scene" 2>"$log" >/dev/null &
  pid=$!
  wid=$(viewer_window "pbd - $scene" "$pid") || exit 1
  sleep "$seconds"
  xdotool windowfocus --sync "$wid" 2>/dev/null || true
  quit_with_escape "$pid" 10 >/dev/null || exit 1
  live=$(summary)
  "$viewer" --scene "$scene" --frames 300 2>"$log" >/dev/null
  test_mode=$(summary | cut -d'|' -f1-2)
  echo "| $scene | $live | $test_mode | $load |"
done
