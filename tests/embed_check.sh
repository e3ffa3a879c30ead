#!/bin/sh
# The game-loop example: 720 frames of a simulated 144 Hz display must take exactly 300
# fixed 60 Hz steps (5 s), keep the cape's held edge on the character's shoulders and stay
# finite. With a second argument (a PNG path) it also runs with a window and checks the
# picture was written.
# usage: embed_check.sh PBD_EMBED [SCREENSHOT.png]
set -eu
embed=$1
out=$("$embed" --headless --frames 720)
echo "$out"
echo "$out" | grep -q '^pbd-embed: 720 frames rendered, 300 steps of 0.0167 s (5.00 s simulated), headless$' ||
	{ echo "FAIL: expected 720 frames and 300 steps"; exit 1; }
err=$(echo "$out" | sed -n 's/.*cape hold error \([-0-9.e+]*\) m.*/\1/p')
awk -v e="$err" 'BEGIN { exit !(e != "" && e + 0 < 1e-5) }' || { echo "FAIL: cape hold error $err m"; exit 1; }
lowest=$(echo "$out" | sed -n 's/.*cape lowest \([-0-9.]*\) m.*/\1/p')
# The cape (0.75 m long, held at 1.6 m) must hang below its held edge and stay off the floor.
awk -v y="$lowest" 'BEGIN { exit !(y > 0.8 && y < 1.55) }' || { echo "FAIL: cape lowest point $lowest m"; exit 1; }
echo "$out" | grep -q 'finite 1$' || { echo "FAIL: not finite"; exit 1; }
if [ $# -ge 2 ]; then
	rm -f "$2"
	"$embed" --frames 30 --screenshot "$2"
	[ -s "$2" ] || { echo "FAIL: no screenshot"; exit 1; }
fi
echo "embed check passed"
