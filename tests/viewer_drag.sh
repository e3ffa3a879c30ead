#!/usr/bin/env bash
# Drags the drape cloth fast down through the sphere with real mouse events (xdotool through
# the X server), and reads the viewer's --dump files: the drag must have pulled the cloth
# (the cursor's target passed below the sphere's centre) and no cloth vertex may be inside
# the sphere in any frame. Run under xvfb-run. usage: viewer_drag.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
open_viewer "$viewer" drape 2 --dump "$dir" || exit 1  # 2 s: the cloth settles over the sphere
# Press on the cloth where it lies over the top of the sphere, then pull straight down past
# the bottom of the window in a few fast moves, hold, and let go.
drag_down "$wid" 350 170 "200 260 320 359"
sleep 0.5
quit_with_escape "$pid" || { echo "the viewer did not end well after Escape"; exit 1; }
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
