#!/bin/sh
# Installs the build into a temporary DESTDIR, then builds and runs an outside program
# with `pkg-config --cflags --libs pbd` alone; checks that only the public API is exported
# and that <pbd/pbd.h> compiles as C99, C11, C17 and C++ without a warning.
# usage: install_check.sh BUILD_DIR SOURCE_DIR [EXTRA_CFLAGS]
set -eu
build=$1
src=$2
extra=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$tmp/root" --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "meson install"; }
pc=$(find "$tmp/root" -name pbd.pc | head -n 1)
[ -n "$pc" ] || fail "no pbd.pc installed"
hdr=$(find "$tmp/root" -path '*/include/pbd/pbd.h' | head -n 1)
[ -n "$hdr" ] || fail "no include/pbd/pbd.h installed"
so=$(find "$tmp/root" -name 'libpbd.so' | head -n 1)
[ -n "$so" ] || fail "no libpbd.so installed"
[ -n "$(find "$tmp/root" -name 'libpbd.a')" ] || fail "no libpbd.a installed"
echo "installed: ${pc#"$tmp/root"} ${hdr#"$tmp/root"} ${so#"$tmp/root"}"

export PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_PATH="$(dirname "$pc")"
flags=$(pkg-config --cflags --libs pbd) || fail "pkg-config --cflags --libs pbd"
echo "pkg-config: $flags"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $extra -o "$tmp/hello" "$src/tests/outside/hello.c" $flags ||
	fail "the outside program does not build"
out=$(LD_LIBRARY_PATH="$(dirname "$so")" "$tmp/hello") || fail "the outside program failed"
echo "outside program: $out"
# 256 vertices, 120 steps, finite; the pins stay at 1.5 m; the swinging cloth hangs below them
# (a 1 m cloth held at two corners reaches down at least 0.5 m) and stays above the floor.
echo "$out" | grep -q '^vertices=256 steps=120 finite=1 pin_y=1.5000 ' || fail "unexpected output"
lowest=$(echo "$out" | sed 's/.*lowest=\([-0-9.]*\).*/\1/')
awk -v y="$lowest" 'BEGIN { exit !(y > 0.0 && y < 1.0) }' || fail "lowest point $lowest is not between the floor and 1 m"
echo "$out" | grep -q 'bad_dt=.' || fail "no error text for a bad dt"

# Only the public API leaves the shared library.
nm -D --defined-only "$so" | awk '{ print $3 }' | sort >"$tmp/exported"
grep -o '^PBD_API [^(]*(' "$hdr" | sed 's/.*[ *]\([a-z_0-9]*\)($/\1/' | sort >"$tmp/declared"
if ! diff "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
	cat "$tmp/diff"
	fail "exported symbols differ from the header's PBD_API declarations"
fi
echo "exported symbols: $(wc -l <"$tmp/exported"), all declared in pbd.h"

# The header alone, in every language mode a game may use.
inc=$(pkg-config --cflags pbd)
for std in c99 c11 c17; do
	# shellcheck disable=SC2086
	cc -std=$std -pedantic -Wall -Wextra -Werror $inc -fsyntax-only "$src/tests/outside/header.c" ||
		fail "pbd.h does not compile cleanly as $std"
done
if command -v c++ >/dev/null 2>&1; then
	for std in c++11 c++17; do
		# shellcheck disable=SC2086
		c++ -x c++ -std=$std -pedantic -Wall -Wextra -Werror $inc -fsyntax-only "$src/tests/outside/header.c" ||
			fail "pbd.h does not compile cleanly as $std"
	done
	echo "pbd.h compiles as c99 c11 c17 c++11 c++17"
else
	fail "no C++ compiler to check the header with"
fi
echo "install check passed"
