#!/usr/bin/env bash
# A real Escape key press, sent through the X server by xdotool, ends a running viewer with
# exit status 0. Run under xvfb-run. usage: viewer_escape.sh VIEWER_BINARY
set -u
viewer="$1"
"$viewer" --scene hang --size 640x360 >/dev/null &
pid=$!
wid=$(timeout 30 xdotool search --sync --onlyvisible --name "^pbd - hang$" 2>/dev/null | head -n 1)
if [ -z "$wid" ]; then
  echo "the viewer window did not appear"
  kill "$pid" 2>/dev/null
  exit 1
fi
sleep 1
xdotool windowfocus --sync "$wid" 2>/dev/null || true
xdotool key Escape
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  echo "the viewer still runs 10 s after Escape"
  kill "$pid"
  exit 1
fi
wait "$pid"
status=$?
echo "viewer exited with status $status after Escape"
exit "$status"
