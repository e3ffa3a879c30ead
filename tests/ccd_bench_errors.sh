#!/bin/sh
# pbd-ccd-bench must refuse malformed query files with exit code 2 and a message naming the
# file, and accept a well-formed one.
set -u
bench=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

row='1,2,3,4,5,8,1'
good="$dir/good.csv"
for i in 1 2 3 4 5 6 7 8; do echo "$row"; done >"$good"

expect() {  # expect CODE DESCRIPTION ARGS...
	code=$1
	what=$2
	shift 2
	"$bench" "$@" >"$dir/out" 2>"$dir/err"
	got=$?
	if [ "$got" -ne "$code" ]; then
		echo "FAIL $what: exit $got, expected $code"; cat "$dir/err"; failures=$((failures + 1)); return
	fi
	if [ "$code" -eq 2 ] && ! grep -q "pbd-ccd-bench" "$dir/err"; then
		echo "FAIL $what: no message"; failures=$((failures + 1)); return
	fi
	echo "ok   $what"
}

bad() {  # bad NAME CONTENT...: the file holds the rows given, one per argument
	name=$1
	shift
	f="$dir/$name.csv"
	: >"$f"
	for r in "$@"; do echo "$r" >>"$f"; done
	expect 2 "$name" --vf "$f"
	if [ "$code" -eq 2 ] && ! grep -q "$name.csv" "$dir/err"; then
		echo "FAIL $name: message does not name the file"; failures=$((failures + 1))
	fi
}

expect 0 well_formed --vf "$good" --ee "$good"
grep -q '^queries=2 collisions=[0-9]* false_negatives=[0-9]* false_positives=[0-9]* us_per_query=' "$dir/out" ||
	{ echo "FAIL summary line"; cat "$dir/out"; failures=$((failures + 1)); }
bad truncated "$row" "$row" "$row" "$row" "$row" "$row" "$row"
bad too_few_fields "$row" "$row" "$row" "1,2,3,4,5,1" "$row" "$row" "$row" "$row"
bad too_many_fields "$row" "$row" "$row" "1,2,3,4,5,8,1,1" "$row" "$row" "$row" "$row"
bad not_a_number "$row" "$row" "$row" "1,2,x,4,5,8,1" "$row" "$row" "$row" "$row"
bad zero_denominator "$row" "$row" "$row" "1,0,3,4,5,8,1" "$row" "$row" "$row" "$row"
bad bad_truth "$row" "$row" "$row" "1,2,3,4,5,8,2" "$row" "$row" "$row" "$row"
bad mixed_truth "$row" "$row" "$row" "1,2,3,4,5,8,0" "$row" "$row" "$row" "$row"
bad empty
expect 2 missing_file --vf "$dir/no-such-file.csv"
expect 2 unknown_flag --vertex "$good"
expect 2 no_files
expect 2 missing_value --ee
[ "$failures" -eq 0 ]
