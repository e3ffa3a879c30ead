#!/usr/bin/env bash
# A person at the keyboard, through the X server (xdotool): `]` walks through every scene in
# the order pbd-sim --list gives, each named in the window's title, and back to the first;
# then every parameter letter raises its parameter once and Shift+letter lowers it again, the
# O key writing the tuning file before, between and after: each value must have moved by the
# parameter's own step (compliances halve, friction +0.05, substeps +1, ...) and come back.
# Run under xvfb-run. usage: viewer_keys.sh VIEWER_BINARY PBD_SIM_BINARY
set -u
. "$(dirname "$0")/viewer_window.sh"
viewer="$1"
sim="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "$*"; kill "$pid" 2>/dev/null; exit 1; }

mapfile -t scenes < <("$sim" --list)
[ "${#scenes[@]}" -ge 2 ] || { echo "pbd-sim --list gave no scenes"; exit 1; }
"$viewer" --scene "${scenes[0]}" --size 640x360 --save-params "$dir/tuning.ini" >/dev/null &
pid=$!
wid=$(viewer_window "pbd - ${scenes[0]}" "$pid") || exit 1
sleep 1
xdotool windowfocus --sync "$wid" 2>/dev/null || true

# Waits up to 20 s for the window's title to become TITLE.
wait_title() {
  local want="$1" got=""
  for _ in $(seq 1 200); do
    got=$(xdotool getwindowname "$wid" 2>/dev/null)
    [ "$got" = "$want" ] && return 0
    sleep 0.1
  done
  echo "the title is '$got', expected '$want'"
  return 1
}

for i in $(seq 1 "${#scenes[@]}"); do
  next=${scenes[$((i % ${#scenes[@]}))]}
  xdotool key --window "$wid" bracketright
  wait_title "pbd - $next" || fail "] did not reach scene $next"
done
echo "] reached all ${#scenes[@]} scenes and came back to ${scenes[0]}"

# Writes the tuning file (O) and waits for it to be new.
save() {
  rm -f "$dir/tuning.ini"
  xdotool key --window "$wid" o
  for _ in $(seq 1 100); do
    [ -s "$dir/tuning.ini" ] && { sleep 0.2; cp "$dir/tuning.ini" "$dir/$1.ini"; return 0; }
    sleep 0.1
  done
  echo "O wrote no tuning file"
  return 1
}

letters="s b f k u i g w d"
save before || fail "no tuning file"
for l in $letters; do xdotool key --window "$wid" "$l"; sleep 0.1; done
save raised || fail "no tuning file"
for l in $letters; do xdotool key --window "$wid" "shift+$l"; sleep 0.1; done
save lowered || fail "no tuning file"
quit_with_escape "$pid" || exit 1

# Each file's values by name ("name = x [y z]": $3 is x, $4 and $5 a vector's y and z).
status=0
awk '
  { v[FILENAME, $1] = $3; vy[FILENAME, $1] = $4; vz[FILENAME, $1] = $5 }
  function near(x, y,   d, s) { d = x - y; if (d < 0) d = -d; s = (x < 0 ? -x : x) + (y < 0 ? -y : y); return d <= 1e-4 * s + 1e-6 }
  function check(what, want, got) {
    if (!near(want, got)) { printf "%s: %.9g, expected %.9g\n", what, got, want; bad = 1 }
  }
  END {
    A = ARGV[1]; B = ARGV[2]; C = ARGV[3]
    # Every value read must be in every file (a missing one would read as 0 and pass).
    m = split("stretch_compliance bend_compliance static_friction kinetic_friction substeps iterations gravity wind damping", all, " ")
    for (k = 1; k <= m; ++k)
      for (f = 1; f <= 3; ++f)
        if (!((ARGV[f], all[k]) in v)) { printf "%s: no %s\n", ARGV[f], all[k]; bad = 1 }
    check("stretch_compliance raised", v[A, "stretch_compliance"] / 2, v[B, "stretch_compliance"])
    check("bend_compliance raised", v[A, "bend_compliance"] / 2, v[B, "bend_compliance"])
    check("static_friction raised", v[A, "static_friction"] + 0.05, v[B, "static_friction"])
    check("kinetic_friction raised", v[A, "kinetic_friction"] + 0.05, v[B, "kinetic_friction"])
    check("substeps raised", v[A, "substeps"] + 1, v[B, "substeps"])
    check("iterations raised", v[A, "iterations"] + 1, v[B, "iterations"])
    check("gravity raised (its y)", vy[A, "gravity"] - 1, vy[B, "gravity"])
    check("damping raised", v[A, "damping"] + 0.25, v[B, "damping"])
    wa = sqrt(v[A, "wind"] ^ 2 + vy[A, "wind"] ^ 2 + vz[A, "wind"] ^ 2)
    wb = sqrt(v[B, "wind"] ^ 2 + vy[B, "wind"] ^ 2 + vz[B, "wind"] ^ 2)
    check("wind speed raised", wa + 1, wb)
    n = split("stretch_compliance bend_compliance static_friction kinetic_friction substeps iterations damping", names, " ")
    for (k = 1; k <= n; ++k)
      check(names[k] " raised and lowered", v[A, names[k]], v[C, names[k]])
    check("gravity raised and lowered", vy[A, "gravity"], vy[C, "gravity"])
    check("wind raised and lowered (x)", v[A, "wind"], v[C, "wind"])
    check("wind raised and lowered (z)", vz[A, "wind"], vz[C, "wind"])
    exit bad
  }' "$dir/before.ini" "$dir/raised.ini" "$dir/lowered.ini" || status=1
[ "$status" -eq 0 ] && echo "every parameter key raised its value by its step, and Shift brought it back"
exit "$status"
