#!/bin/sh
# pbd-bench on a tiny table: the CSV has one row per scene x res x threads with the figures
# the performance issue names, consistent with the run (particles = res^2, reps x frames),
# and the plot is a 1100 x 700 PNG.
set -eu
bench=$1
out=${TMPDIR:-/tmp}/pbd_bench_check_$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
"$bench" --scenes hang,drape --res 8,12 --threads 1,2 --self on --frames 10 --warmup 2 --reps 2 --no-targets \
  --csv "$out/b.csv" --plot "$out/b.png" > "$out/stdout.txt"
python3 - "$out/b.csv" "$out/b.png" "$out/stdout.txt" <<'PY'
import csv, struct, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 8, f"{len(rows)} rows, want 8"
need = ["scene", "res", "particles", "threads", "self_collision", "ms_median", "ms_min", "ms_max",
        "broad_phase_ms", "contacts_ms", "ccd_ms", "constraints_ms", "ns_per_constraint_substep",
        "candidate_pairs", "ccd_pairs", "bytes_peak", "bytes_per_particle"]
for key in need:
    assert key in rows[0], f"column {key} missing"
for r in rows:
    res = int(r["res"])
    assert int(r["particles"]) == res * res, r
    assert r["reps"] == "2" and r["frames"] == "20", r
    lo, med, hi = float(r["ms_min"]), float(r["ms_median"]), float(r["ms_max"])
    assert 0 < lo <= med <= hi, r
    assert float(r["ns_per_constraint_substep"]) > 0, r
    assert abs(float(r["bytes_per_particle"]) * int(r["particles"]) - int(r["bytes_peak"])) <= int(r["particles"]), r
    assert r["finite"] == "1", r
png = open(sys.argv[2], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert (w, h) == (1100, 700), (w, h)
text = open(sys.argv[3]).read()
assert text.count("\nhang ") + text.count("\ndrape") == 8, text
print("pbd-bench: 8 rows, columns and plot as promised")
PY
