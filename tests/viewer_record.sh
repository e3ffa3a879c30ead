#!/bin/sh
# --record and --dump in test mode: one PNG and one OBJ per drawn frame, numbered from 0; the
# last PNG is the --screenshot of the same run, byte for byte, the line the viewer ends with
# counts the frames and the simulated time, a second run records the same
# pictures, and the OBJ dumps hold the cloth as it moves. Run under xvfb-run.
# usage: viewer_record.sh VIEWER_BINARY
set -u
viewer="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "$*"; exit 1; }
for run in a b; do
  "$viewer" --scene drop --size 320x180 --frames 6 --record "$dir/png_$run" --dump "$dir/obj_$run" \
    --screenshot "$dir/last_$run.png" >/dev/null 2>"$dir/err_$run" || fail "the viewer failed (run $run)"
done
# The line the viewer ends with: in test mode 6 frames drawn and 6/60 s simulated.
line=$(grep '^pbd-viewer: summary drop: ' "$dir/err_a") || fail "no summary line: $(cat "$dir/err_a")"
echo "$line" | grep -q ': 6 frames drawn in .* fps, longest frame .* ms); 0.10 s simulated (' ||
  fail "the summary does not tell 6 frames and 0.10 s simulated: $line"
[ "$(ls "$dir/png_a" | wc -l)" -eq 6 ] || fail "expected 6 recorded frames, got $(ls "$dir/png_a" | wc -l)"
[ "$(ls "$dir/obj_a" | wc -l)" -eq 6 ] || fail "expected 6 dumps, got $(ls "$dir/obj_a" | wc -l)"
[ -f "$dir/png_a/frame_00000.png" ] && [ -f "$dir/png_a/frame_00005.png" ] || fail "frames are not numbered 0..5"
cmp -s "$dir/png_a/frame_00005.png" "$dir/last_a.png" || fail "the last recorded frame is not the screenshot"
for f in "$dir"/png_a/*.png; do
  cmp -s "$f" "$dir/png_b/$(basename "$f")" || fail "$(basename "$f") differs between two runs"
done
cmp -s "$dir/png_a/frame_00000.png" "$dir/png_a/frame_00005.png" && fail "the recorded frames do not move"
# The cloth falls: its highest vertex is lower in the last dump than in the first.
top() { awk '/^v / { if (!n || $3 > m) m = $3; n++ } END { if (!n) exit 1; print m }' "$1"; }
first=$(top "$dir/obj_a/frame_00000.obj") || fail "no cloth vertices in the first dump"
last=$(top "$dir/obj_a/frame_00005.obj") || fail "no cloth vertices in the last dump"
awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a) }' || fail "the cloth did not fall in the dumps ($first -> $last)"
cmp -s "$dir/obj_a/frame_00005.obj" "$dir/obj_b/frame_00005.obj" || fail "the dumps differ between two runs"
"$viewer" --record /nonexistent/pbd/record --frames 1 >/dev/null 2>&1 && fail "an unwritable --record directory was accepted"
echo "6 frames recorded and dumped, the same on two runs; top of the cloth $first -> $last m"
