#!/bin/sh
# A fresh meson project that takes pbd as a subproject through dependency('pbd') (the
# project's meson.override_dependency), builds the outside program against it and runs it.
# usage: subproject_check.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/game/subprojects"
# A copy without build directories: meson wants the subproject's tree inside the project.
tar -C "$src" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$tmp/game/subprojects" --one-top-level=pbd -xf -
cp "$src/tests/outside/hello.c" "$tmp/game/"
cat >"$tmp/game/meson.build" <<'MESON'
project('game', 'c', default_options : ['c_std=c11', 'warning_level=3', 'werror=true'])
executable('game', 'hello.c', dependencies : dependency('pbd'))
MESON
meson setup "$tmp/build" "$tmp/game" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: meson setup"; exit 1; }
meson compile -C "$tmp/build" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: meson compile"; exit 1; }
out=$("$tmp/build/game") || { echo "FAIL: the game did not run"; exit 1; }
echo "game: $out"
echo "$out" | grep -q '^vertices=256 steps=120 finite=1 pin_y=1.5000 ' || { echo "FAIL: unexpected output"; exit 1; }
echo "subproject check passed"
