#!/usr/bin/env bash
# A real Escape key press, sent through the X server by xdotool, ends a running viewer with
# exit status 0. Run under xvfb-run. usage: viewer_escape.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
"$viewer" --scene hang --size 640x360 >/dev/null &
pid=$!
wid=$(viewer_window "pbd - hang" "$pid") || exit 1
sleep 1
xdotool windowfocus --sync "$wid" 2>/dev/null || true
quit_with_escape "$pid"
status=$?
echo "viewer exited with status $status after Escape"
exit "$status"
