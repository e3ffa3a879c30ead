#!/usr/bin/env bash
# Two hands with real mouse events (xdotool through the X server): in `hang` with the tear
# strain raised by four presses of T (0.2), the right button holds the cloth left of its middle
# and the left button pulls from right of its middle far to the right. The viewer's --dump
# files must show the hold (its target the whole time it is held, the cloth still there within
# a few centimetres of it) and the cloth torn: more vertices at the end than at the start. The
# pull lasts until a frame shows the tear (at most about 30 s), so a slow machine gets the frames
# it needs.
# Run under xvfb-run. usage: viewer_tear.sh VIEWER_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
open_viewer "$viewer" hang 1.5 --dump "$dir" || exit 1
for _ in 1 2 3 4; do
  xdotool key t
  sleep 0.1
done
xdotool mousemove --window "$wid" 300 150 mousedown 3
sleep 0.3
xdotool mousemove --window "$wid" 365 150 mousedown 1
sleep 0.3
for x in 420 480 540 600 630; do
  xdotool mousemove --window "$wid" "$x" 150
  sleep 0.1
done
# Hold on until a drawn frame shows the cloth torn (more vertices than the first frame) or
# 30 s have passed: how many frames the pull takes depends on how fast this machine steps.
vertices() { grep -c '^v ' "$1"; }
first_frame=$(ls "$dir"/frame_*.obj | head -n 1)
start=$(vertices "$first_frame")
sleep 1.5
for _ in $(seq 1 285); do
  latest=$(ls "$dir"/frame_*.obj | tail -n 2 | head -n 1)  # the last one may be half written
  [ "$(vertices "$latest")" -gt "$start" ] && break
  sleep 0.1
done
xdotool mouseup 1
sleep 0.2
# Keep the hold until at least six drawn frames show it (a slow machine draws few frames).
for _ in $(seq 1 200); do
  [ "$(grep -l '^# hold target' "$dir"/frame_*.obj | wc -l)" -ge 6 ] && break
  sleep 0.1
done
xdotool mouseup 3
sleep 0.3
quit_with_escape "$pid" || { echo "the viewer did not end well after Escape"; exit 1; }
ls "$dir"/frame_*.obj >/dev/null 2>&1 || { echo "no --dump files"; exit 1; }
awk '
  FNR == 1 { files++; name[files] = FILENAME; held = 0 }
  /^# hold target / { held = 1; hx = $4; hy = $5; hz = $6; holds++; best[FILENAME] = 1e9 }
  /^v / {
    count[FILENAME]++
    if (held) {
      d = sqrt(($2 - hx) ^ 2 + ($3 - hy) ^ 2 + ($4 - hz) ^ 2)
      if (d < best[FILENAME]) best[FILENAME] = d
    }
  }
  END {
    worst = 0
    for (f in best) if (best[f] > worst) worst = best[f]
    first = count[name[1]]; last = count[name[files]]
    printf "%d frames, %d holding; vertices %d at the start, %d at the end; the cloth within %.3f m of the hold in every held frame\n", files, holds, first, last, worst
    if (holds < 5) { print "the right button did not hold the cloth"; exit 1 }
    if (worst > 0.05) { print "the held cloth left the hold"; exit 1 }
    if (last <= first) { print "the cloth did not tear"; exit 1 }
  }' "$dir"/frame_*.obj
