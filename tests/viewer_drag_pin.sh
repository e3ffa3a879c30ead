#!/usr/bin/env bash
# Drags one of hang's pins fast down through the floor with real mouse events (xdotool through
# the X server), and reads the viewer's --dump files: the dragged vertex was a pin, the cursor
# pulled it below the floor, yet no cloth vertex went under the floor in any frame (the
# engine's grab pulls the pin, and the cloth, hanging from the other pin, holds it back; a pin
# moved where the cursor is would have gone under); let go, the vertex is pinned again where
# the drag left it (it stays put). Run under xvfb-run.
# usage: viewer_drag_pin.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
open_viewer "$viewer" hang 2 --dump "$dir" || exit 1  # 2 s: the pins have come together
# The right pin is drawn at (372.5, 79.5) in this window, the cloth's corner just below and
# left of it: press there, pull straight down past the bottom of the window in a few fast
# moves, hold, and let go.
drag_down "$wid" 370 81 "150 250 330 359"
# Wait (up to 30 s: steps of this folding, self-touching cloth are slow on a busy machine)
# until the two newest dumps both come after the release (no drag line in them).
for _ in $(seq 1 300); do
  newest=$(ls "$dir"/frame_*.obj 2>/dev/null | tail -n 2)
  [ "$(echo "$newest" | wc -w)" -eq 2 ] && ! grep -q '^# drag ' $newest && break
  sleep 0.1
done
quit_with_escape "$pid" || { echo "the viewer did not end well after Escape"; exit 1; }
ls "$dir"/frame_*.obj >/dev/null 2>&1 || { echo "no --dump files"; exit 1; }
last=$(ls "$dir"/frame_*.obj | tail -n 1)
before_last=$(ls "$dir"/frame_*.obj | tail -n 2 | head -n 1)
awk -v last="$last" -v before_last="$before_last" '
  FNR == 1 { files++; n = 0 }
  /^# drag / { drags++; pinned += $6 == 1; vertex = $4; if (!seen || $9 < low) low = $9; seen = 1 }
  /^v / {
    if (!any || $3 < lowest) { lowest = $3; where = FILENAME }
    any = 1
    if (n == vertex && (!have_low || $3 < dragged_low)) { dragged_low = $3; have_low = 1 }
    if (FILENAME == last && n == vertex) end_last = $2 " " $3 " " $4
    if (FILENAME == before_last && n == vertex) end_before = $2 " " $3 " " $4
    n++
  }
  END {
    printf "%d frames, %d with a pin dragged (vertex %d); lowest target y %.4f, the pin itself down to %.4f; lowest vertex y %.5f (%s); after the drag %s, then %s\n", files, pinned, vertex, low, dragged_low, lowest, where, end_before, end_last
    if (!any) { print "no cloth in the dumps"; exit 1 }
    if (pinned < 2) { print "the press did not take a pin"; exit 1 }
    if (low > 0) { print "the drag did not pull below the floor" ; exit 1 }
    if (lowest < -1e-3) { print "a cloth vertex went under the floor"; exit 1 }
    if (dragged_low < low + 0.3) { print "the pin went where the cursor is: it was not pulled by the grab"; exit 1 }
    if (end_last != end_before) { print "the pin does not hold where the drag left it"; exit 1 }
  }' "$dir"/frame_*.obj
