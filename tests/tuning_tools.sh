#!/bin/sh
# Bring your own cloth and keep your tuning, through the tools:
#  1. pbd-sim --cloth FILE.obj runs and dumps your mesh (and refuses a bad file with file:line);
#  2. a tuning saved by pbd-sim --save-params and loaded with --params gives bit-identical
#     positions after 120 frames, and load -> save gives the same file;
#  3. the C code of --print-c compiles and simulates exactly as the file does;
#  4. pbd-sim --frame-log writes one CSV row per frame that agrees with the run's JSON.
# usage: tuning_tools.sh PBD_SIM SOURCE_DIR BUILD_DIR [EXTRA_CFLAGS]
set -eu
sim=$1
src=$2
build=$3
extra=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Your mesh.
"$sim" --cloth "$src/demos/meshes/tablecloth.obj" --sphere --frames 60 --dump "$tmp/mesh" --dump-every 30 >"$tmp/out" ||
	fail "pbd-sim --cloth"
cat "$tmp/out"
for f in 00000 00030 00060; do
	[ -s "$tmp/mesh/frame_$f.obj" ] || fail "no dump frame_$f.obj"
done
[ "$(grep -c '^v ' "$tmp/mesh/frame_00060.obj")" = 631 ] || fail "the dump does not have the mesh's 631 vertices"
grep -q '^# sphere ' "$tmp/mesh/frame_00060.obj" || fail "no sphere line in the dump"
"$sim" --cloth "$src/demos/meshes/flag.obj" --pin top --frames 30 >/dev/null || fail "--pin top"
"$sim" --cloth "$src/demos/meshes/flag.obj" --pin 0,24 --frames 30 >"$tmp/pin" || fail "--pin 0,24"
# --pin says how many vertices it pinned: the two listed; the top edge of the flag (its
# highest row of vertices, more than one); none without --pin.
grep -q ": 2 vertices pinned (--pin 0,24);" "$tmp/pin" || { cat "$tmp/pin"; fail "--pin 0,24 did not report 2 pinned"; }
"$sim" --cloth "$src/demos/meshes/flag.obj" --pin top --frames 1 >"$tmp/pin" || fail "--pin top"
grep -Eq ": ([2-9]|[1-9][0-9]+) vertices pinned \(--pin top\);" "$tmp/pin" || { cat "$tmp/pin"; fail "--pin top: no count"; }
"$sim" --cloth "$src/demos/meshes/flag.obj" --frames 1 >"$tmp/pin" || fail "no --pin"
grep -q ": 0 vertices pinned (--pin none);" "$tmp/pin" || { cat "$tmp/pin"; fail "no --pin: no count of 0"; }
printf 'v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 7\n' >"$tmp/bad.obj"
if "$sim" --cloth "$tmp/bad.obj" --frames 5 2>"$tmp/err"; then fail "a bad OBJ was accepted"; fi
grep -q "bad.obj:4: vertex index 7 is out of range" "$tmp/err" || { cat "$tmp/err"; fail "no file:line message"; }
if "$sim" --cloth "$src/demos/meshes/flag.obj" --pin 0,99999 --frames 5 2>"$tmp/err"; then fail "a bad pin was accepted"; fi
grep -q -- "--pin 0,99999" "$tmp/err" || { cat "$tmp/err"; fail "no message for a bad pin"; }

# 2. Save, reload: the same positions, bit for bit, and the same file.
"$sim" --scene hang --material denim --set damping=0.75 --set bend_compliance=2500 --save-params "$tmp/a.ini" \
	--frames 120 --dump "$tmp/a" --dump-every 120 >/dev/null || fail "save"
"$sim" --scene hang --params "$tmp/a.ini" --save-params "$tmp/b.ini" --frames 120 --dump "$tmp/b" --dump-every 120 \
	>/dev/null || fail "reload"
cmp "$tmp/a.ini" "$tmp/b.ini" || fail "load -> save changed the file"
cmp "$tmp/a/frame_00120.obj" "$tmp/b/frame_00120.obj" || fail "reloaded tuning gives other positions"
"$sim" --scene hang --frames 120 --dump "$tmp/c" --dump-every 120 >/dev/null
if cmp -s "$tmp/a/frame_00120.obj" "$tmp/c/frame_00120.obj"; then fail "the tuning changed nothing"; fi
echo "tuning file: reload gives identical positions after 120 frames; load -> save gives the same file"
printf '[cloth]\ndamping = lots\n' >"$tmp/bad.ini"
if "$sim" --scene hang --params "$tmp/bad.ini" --frames 1 2>"$tmp/err"; then fail "a bad tuning file was accepted"; fi
grep -q "bad.ini:2: cloth.damping = 'lots'" "$tmp/err" || { cat "$tmp/err"; fail "no file:line message for a bad tuning"; }

# 3. The C code and the file give the same simulation.
"$sim" --scene hang --params "$tmp/a.ini" --print-c --frames 0 | sed -n '/^\/\* pbd tuning/,/max_candidate_pairs/p' \
	>"$tmp/snippet.inc"
grep -q 'cloth_def.material.bend_compliance = 2500' "$tmp/snippet.inc" || { cat "$tmp/snippet.inc"; fail "C code"; }
libs="$build/demos/libpbd_tuning.a $build/engine/libpbd.a -linih -lm -lpthread"
# shellcheck disable=SC2086
cc -std=c17 -Wall -Wextra -Werror $extra -I"$src/engine/include" -DTUNING_SNIPPET="\"$tmp/snippet.inc\"" \
	-o "$tmp/from_code" "$src/tests/outside/tuning_c.c" $libs || fail "the printed C code does not compile"
# shellcheck disable=SC2086
cc -std=c17 -Wall -Wextra -Werror $extra -I"$src/engine/include" -I"$src/demos/tuning" \
	-o "$tmp/from_file" "$src/tests/outside/tuning_c.c" $libs || fail "the file loader does not compile"
code=$("$tmp/from_code") || fail "from code"
file=$("$tmp/from_file" "$tmp/a.ini") || fail "from file"
echo "from the C code: $code"
echo "from the file:   $file"
[ "$code" = "$file" ] || fail "the C code and the file simulate differently"

# 4. The frame log: a header and a row per frame, whose searches add up to the JSON's figures
# per frame and whose slowest frame is the JSON's ms_max.
"$sim" --scene fold --frames 40 --frame-log "$tmp/frames.csv" --json | tail -n 1 >"$tmp/run.json" ||
	fail "pbd-sim --frame-log"
python3 - "$tmp/frames.csv" "$tmp/run.json" <<'PY' || fail "the frame log disagrees with the JSON"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
run = json.load(open(sys.argv[2]))
assert len(rows) == run["frames"] == 40, len(rows)
assert [int(r["frame"]) for r in rows] == list(range(1, 41))
for key, column in (("broad_phase_builds_per_frame", "builds"), ("broad_phase_updates_per_frame", "updates"),
                    ("substeps_taken_per_frame", "substeps")):
    total = sum(int(r[column]) for r in rows)
    assert abs(total / 40 - run[key]) < 0.006, (column, total, run[key])
assert max(float(r["ms"]) for r in rows) == run["ms_max"], "slowest frame"
assert all(float(r["broad_phase_ms"]) <= float(r["ms"]) for r in rows), "a stage longer than its frame"
assert sum(int(r["builds"]) for r in rows) > 0, "no search at all"
print("frame log: 40 rows; searches, substeps and the slowest frame agree with the JSON")
PY
if "$sim" --scene fold --frames 2 --frame-log "$tmp/no/such/dir.csv" 2>"$tmp/err" >/dev/null; then
	fail "a frame log that cannot be written was accepted"
fi
grep -q -- "--frame-log $tmp/no/such/dir.csv" "$tmp/err" || { cat "$tmp/err"; fail "no message for the frame log"; }
echo "tuning tools check passed"
