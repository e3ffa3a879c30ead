#!/usr/bin/env bash
# A real Escape key press, sent through the X server by xdotool, ends a running viewer with
# exit status 0: a light scene, and a world so heavy that each step takes seconds (fold at
# 128 x 128 with 100 substeps of 50 passes), where Escape must still end it within 2 s: the
# steps run apart from the window. Run under xvfb-run. usage: viewer_escape.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
"$viewer" --scene hang --size 640x360 >/dev/null &
pid=$!
wid=$(viewer_window "pbd - hang" "$pid") || exit 1
sleep 1
xdotool windowfocus --sync "$wid" 2>/dev/null || true
quit_with_escape "$pid" || exit 1
echo "viewer (hang) exited with status 0 after Escape"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '[world]\nsubsteps = 100\niterations = 50\n' >"$dir/heavy.ini"
"$viewer" --scene fold --res 128 --params "$dir/heavy.ini" --size 640x360 >/dev/null &
pid=$!
wid=$(viewer_window "pbd - fold" "$pid") || exit 1
sleep 3  # well inside a step by now
xdotool windowfocus --sync "$wid" 2>/dev/null || true
start=$(date +%s.%N)
quit_with_escape "$pid" 2
status=$?
end=$(date +%s.%N)
echo "viewer (heavy fold) exited with status $status $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s after Escape"
exit "$status"
