#!/usr/bin/env bash
# Drags the drape cloth fast down through the sphere with real mouse events (xdotool through
# the X server), and reads the viewer's --dump files: the drag must have pulled the cloth
# (the cursor's target passed below the sphere's centre) and no cloth vertex may be inside
# the sphere in any frame. Run under xvfb-run. usage: viewer_drag.sh VIEWER_BINARY
set -u
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$viewer" --scene drape --size 640x360 --dump "$dir" >/dev/null &
pid=$!
wid=$(timeout 30 xdotool search --sync --onlyvisible --name "^pbd - drape$" 2>/dev/null | head -n 1)
if [ -z "$wid" ]; then
  echo "the viewer window did not appear"
  kill "$pid" 2>/dev/null
  exit 1
fi
sleep 2  # the cloth settles over the sphere
xdotool windowfocus --sync "$wid" 2>/dev/null || true
# Press on the cloth where it lies over the top of the sphere, then pull straight down past
# the bottom of the window in a few fast moves, hold, and let go.
xdotool mousemove --window "$wid" 350 170 mousedown 1
sleep 0.3
for y in 200 260 320 359; do
  xdotool mousemove --window "$wid" 350 "$y"
  sleep 0.05
done
sleep 1.5
xdotool mouseup 1
sleep 0.5
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
wait "$pid" || { echo "the viewer failed"; exit 1; }
ls "$dir"/frame_*.obj >/dev/null 2>&1 || { echo "no --dump files"; exit 1; }
awk '
  FNR == 1 { files++ }
  /^# sphere / { cx = $3; cy = $4; cz = $5; r = $6; have = 1 }
  /^# drag / && $6 == 0 { drags++; if (!seen || $9 < low) low = $9; seen = 1 }
  /^v / && have {
    d = sqrt(($2 - cx) ^ 2 + ($3 - cy) ^ 2 + ($4 - cz) ^ 2) - r
    if (!any || d < worst) { worst = d; where = FILENAME }
    any = 1
  }
  END {
    printf "%d frames, %d with the cloth grabbed; lowest target y %.3f (sphere centre y %.3f, radius %.3f); closest vertex %.5f m outside the sphere (%s)\n", files, drags, low, cy, r, worst, where
    if (!have || !any) { print "no sphere or no cloth in the dumps"; exit 1 }
    if (drags < 2) { print "the press did not grab the cloth"; exit 1 }
    if (low > cy) { print "the drag did not pull below the sphere centre"; exit 1 }
    if (worst < 0) { print "a cloth vertex is inside the sphere"; exit 1 }
  }' "$dir"/frame_*.obj
