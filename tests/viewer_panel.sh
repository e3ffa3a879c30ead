#!/usr/bin/env bash
# The control panel (L) with real mouse clicks: a click near the right end of the damping
# slider sets a high damping (read back from the tuning file the O key writes), a click on
# "fold" in the scene list switches to it (the window's title), and L hides the panel again so
# that a click there reaches the scene. The positions are the panel's fixed layout in a
# 1280 x 720 window (Dear ImGui's built-in font).
# Run under xvfb-run. usage: viewer_panel.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; kill "$pid" 2>/dev/null; exit 1; }
"$viewer" --scene hang --size 1280x720 --save-params "$dir/tuning.ini" >/dev/null &
pid=$!
wid=$(viewer_window "pbd - hang" "$pid") || exit 1
sleep 1
xdotool windowfocus --sync "$wid" 2>/dev/null || true
xdotool key --window "$wid" l
sleep 0.5
xdotool mousemove --window "$wid" 1062 254 click 1   # the damping slider, near its right end (50)
sleep 0.5
xdotool mousemove --window "$wid" 640 600             # off the panel, so that O is the viewer's
sleep 0.2
xdotool key --window "$wid" o
for _ in $(seq 1 100); do [ -s "$dir/tuning.ini" ] && break; sleep 0.1; done
sleep 0.2
damping=$(awk '$1 == "damping" { print $3 }' "$dir/tuning.ini")
echo "damping after the click: $damping"
awk -v d="$damping" 'BEGIN { exit !(d + 0 > 40) }' || fail "the slider click did not set a high damping ($damping)"
xdotool mousemove --window "$wid" 940 503 click 1     # "5  fold" in the scene list
for _ in $(seq 1 100); do
  xdotool search --name '^pbd - fold$' >/dev/null 2>&1 && break
  sleep 0.1
done
xdotool search --name '^pbd - fold$' >/dev/null 2>&1 || fail "the scene list did not switch to fold"
echo "the scene list switched to fold"
xdotool key --window "$wid" l                          # hidden: the same place is the scene's again
sleep 0.3
xdotool mousemove --window "$wid" 940 452 click 1     # where "2  drop" was
sleep 0.5
xdotool search --name '^pbd - fold$' >/dev/null 2>&1 || fail "a click where the hidden panel was switched the scene"
quit_with_escape "$pid" || exit 1
echo "viewer panel check passed"
