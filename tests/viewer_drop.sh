#!/bin/sh
# Dropping files on the viewer (through the drop handler, --drop FRAME:FILE in test mode):
# a bad OBJ leaves the running scene as it was, with a file:line message in the terminal;
# a good one becomes the scene. Also --cloth with a material preset and the tuning key.
# usage: viewer_drop.sh PBD_VIEWER SOURCE_DIR
set -eu
viewer=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 nan\n' >"$tmp/bad.obj"

"$viewer" --scene hang --frames 40 --size 320x180 --drop "10:$tmp/bad.obj" --screenshot "$tmp/dropped.png" \
	2>"$tmp/err" || { cat "$tmp/err"; fail "the viewer stopped after a bad drop"; }
cat "$tmp/err"
grep -q "bad.obj:4: face corner 'nan' is not an index" "$tmp/err" || fail "no file:line message for the bad drop"
[ -s "$tmp/dropped.png" ] || fail "no picture after the bad drop"

"$viewer" --scene hang --frames 40 --size 320x180 --drop "5:$tmp/bad.obj" --drop "10:$src/demos/meshes/flag.obj" \
	--pin top --material silk --save-params "$tmp/t.ini" --keys "30:O" --screenshot "$tmp/flag.png" >"$tmp/out" \
	2>"$tmp/err" || { cat "$tmp/err"; fail "the viewer failed with a good drop"; }
grep -q "cloth_def.material.bend_compliance = 500000.0f;" "$tmp/out" || { cat "$tmp/out"; fail "no C code printed"; }
grep -q "^material = silk$" "$tmp/t.ini" || { cat "$tmp/t.ini"; fail "the tuning file does not name the preset"; }
grep -q "^areal_density = 0.0799999982$" "$tmp/t.ini" || fail "the tuning file lacks silk's density"
echo "viewer drop check passed"
