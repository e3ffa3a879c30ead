#!/bin/sh
# Runs pbd-ccd-bench over every query file under a directory; fails unless it reports no misses.
# usage: ccd_queries.sh PBD_CCD_BENCH DIR [extra bench arguments]
set -eu
bench=$1
dir=$2
shift 2
set --  "$@"
args=""
for f in $(find "$dir" -name '*.csv' | sort); do
	case $f in
	*vertex-face*) args="$args --vf $f" ;;
	*edge-edge*) args="$args --ee $f" ;;
	esac
done
[ -n "$args" ] || { echo "no query files under $dir"; exit 1; }
# shellcheck disable=SC2086
out=$("$bench" "$@" $args)
echo "$out"
last=$(echo "$out" | tail -n 1)
case $last in
queries=*" false_negatives=0 "*) exit 0 ;;
*) echo "misses reported"; exit 1 ;;
esac
