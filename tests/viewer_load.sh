#!/usr/bin/env bash
# Your own big mesh in a live window: the window appears at once and its title (and a panel)
# shows the share of the file read; Escape cancels the load within a second or two and the
# first scene runs instead; Escape again quits. A small mesh loads and becomes the scene.
# Run under xvfb-run. usage: viewer_load.sh VIEWER_BINARY SOURCE_DIR
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
src="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# A 700 x 700 grid: 490,000 vertices, 36 MB of text, several seconds to read and build.
awk 'BEGIN { n = 700
  for (j = 0; j < n; ++j) for (i = 0; i < n; ++i) printf "v %.6f 1.5 %.6f\n", 2 * i / (n - 1) - 1, 2 * j / (n - 1) - 1
  for (j = 0; j < n - 1; ++j) for (i = 0; i < n - 1; ++i) { a = j * n + i + 1
    printf "f %d %d %d\nf %d %d %d\n", a, a + 1, a + n + 1, a, a + n + 1, a + n } }' >"$dir/big.obj"

titles() { xdotool search --name '^pbd - ' getwindowname 2>/dev/null; }
wait_title() {  # PATTERN SECONDS: waits for a window title matching PATTERN (grep -E)
  for _ in $(seq 1 $(($2 * 10))); do
    titles | grep -Eq "$1" && return 0
    sleep 0.1
  done
  return 1
}

"$viewer" --cloth "$dir/big.obj" --size 640x360 2>"$dir/err" >/dev/null &
pid=$!
# What the viewer said, for a failure: its standard error and whether it still runs.
said() { kill -0 "$pid" 2>/dev/null && echo "(still running)" || echo "(ended)"; cat "$dir/err"; }
wait_title '^pbd - loading big\.obj [0-9]+%$' 30 || { said; kill "$pid" 2>/dev/null; fail "no loading title: $(titles)"; }
echo "while loading: $(titles)"
# The share read moves on while the window runs.
wait_title '^pbd - loading big\.obj [1-9][0-9]?%$' 30 || { kill "$pid"; fail "the share read did not move: $(titles)"; }
echo "then: $(titles)"
wid=$(xdotool search --name '^pbd - ' | head -n 1)
xdotool windowfocus --sync "$wid" 2>/dev/null || true
xdotool key Escape
start=$(date +%s%N)
wait_title '^pbd - hang$' 5 || { kill "$pid"; fail "Escape did not cancel the load: $(titles)"; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "Escape cancelled the load in $ms ms; title now: $(titles)"
[ "$ms" -le 2000 ] || { kill "$pid"; fail "cancelling took $ms ms"; }
kill -0 "$pid" 2>/dev/null || fail "the viewer ended instead of cancelling"
grep -q "loading .*big.obj cancelled" "$dir/err" || { cat "$dir/err"; fail "no message of the cancel"; }
sleep 0.5
quit_with_escape "$pid" || fail "the viewer did not end after a second Escape"

"$viewer" --cloth "$src/demos/meshes/flag.obj" --pin top --size 640x360 2>"$dir/err2" >/dev/null &
pid=$!
for _ in $(seq 1 600); do grep -q "loaded .*flag.obj in" "$dir/err2" && break; sleep 0.1; done
grep -q "loaded .*flag.obj in" "$dir/err2" || { kill "$pid"; cat "$dir/err2"; fail "the small mesh did not load"; }
wait_title '^pbd - mesh$' 10 || { kill "$pid"; fail "the small mesh did not become the scene: $(titles)"; }
sleep 0.5
quit_with_escape "$pid" || fail "the viewer did not end after Escape"
echo "viewer load check passed"
