#!/bin/bash
# Measures the figures the docs quote and writes them to docs/figures.md, stamped with the
# commit, the date and the machine they were measured on. The docs point here instead of
# carrying numbers of their own, so a figure is either re-measured or visibly dated.
#
# usage: bash docs/figures.sh [BUILD_DIR]     (default: build; about 3 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sim=$build/demos/pbd-sim
ccd=$build/tests/pbd-ccd-bench
for tool in "$sim" "$ccd"; do
	[ -x "$tool" ] || { echo "figures.sh: $tool is missing; build first (meson compile -C $build)" >&2; exit 2; }
done
out=docs/figures.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown)
cores=$(nproc 2>/dev/null || echo '?')
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || uname -s)
buildtype=$(meson introspect "$build" --buildoptions 2>/dev/null |
	python3 -c "import json,sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name']=='buildtype'))" 2>/dev/null || echo unknown)

json() { "$sim" "$@" --threads 1 --json 2>/dev/null | tail -n 1; }

{
	echo "# Measured figures"
	echo
	echo "Written by \`bash docs/figures.sh\`; do not edit by hand."
	echo
	echo "- commit: \`$commit\`$dirty"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- machine: $cpu, $cores cores, $os"
	echo "- build: \`$build\` ($buildtype)"
	echo
	echo "## Every scene at its defaults (600 frames, 1 thread)"
	echo
	echo "\`pbd-sim --scene S --frames 600 --threads 1 --json\`. ms/frame is wall time of"
	echo "\`pbd_world_step\`; searches are full candidate-pair searches per frame; stretch is the"
	echo "worst edge strain of the last frame."
	echo
	echo "| scene | cloth vertices | free particles | median ms | p99 ms | max ms | searches/frame | candidate pairs (peak) | worst stretch | finite |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for scene in $("$sim" --list | awk '{print $1}'); do
		json --scene "$scene" --frames 600 | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %d | %.1f%% | %s |' % (d['scene'], d['particles'], d['free_particles'], d['ms_per_frame'],
      d['ms_p99'], d['ms_max'], d['broad_phase_builds_per_frame'], d['candidate_pairs_peak'],
      100 * d['max_stretch'], 'yes' if d['finite'] else 'NO'))"
	done
	echo
	echo "## Self-collision: what it costs (120 frames, 1 thread)"
	echo
	echo "Where twice the thickness spans 1.2 edges or more (hang from 64 x 64: 2 cm on edges of 1.6 cm and"
	echo "7.9 mm; drape at 128 x 128: on 1.1 cm), the near pairs of grid cloths (docs/contacts.md) hold"
	echo "most of the cloth's pairs."
	echo
	echo "| scene | resolution | self-collision off, median ms | on, median ms | on / off |"
	echo "|---|---|---|---|---|"
	for run in hang:32 hang:64 hang:128 drape:128; do
		scene=${run%%:*} res=${run##*:}
		off=$(json --scene "$scene" --res "$res" --frames 120 --set self_collision=0)
		on=$(json --scene "$scene" --res "$res" --frames 120 --set self_collision=1)
		python3 -c "
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print('| %s | %s x %s | %.2f | %.2f | %.1f |' % (sys.argv[4], sys.argv[3], sys.argv[3], a['ms_per_frame'],
      b['ms_per_frame'], b['ms_per_frame'] / a['ms_per_frame']))" "$off" "$on" "$res" "$scene"
	done
	echo
	echo "## CCD narrow phases over the public query set"
	echo
	echo "\`tests/ccd_queries.sh $ccd tests/data/ccd-queries --method M\` (every vertex-face and"
	echo "edge-edge file; ground truth from the set)."
	echo
	echo "| method | queries | collisions | false negatives | false positives | mean µs per query |"
	echo "|---|---|---|---|---|---|"
	for method in additive inclusion refined; do
		sh tests/ccd_queries.sh "$ccd" tests/data/ccd-queries --method "$method" | tail -n 1 |
			sed -E 's/queries=([0-9]+) collisions=([0-9]+) false_negatives=([0-9]+) false_positives=([0-9]+) us_per_query=([0-9.]+).*/| '"$method"' | \1 | \2 | \3 | \4 | \5 |/'
	done
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
