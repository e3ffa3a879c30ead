#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer + UBSan) in build-fuzz and runs
# each for SECONDS (default 60) from the committed seed corpus. Prints executions per target;
# exits non-zero on the first finding (the crashing input is left in build-fuzz/findings).
#   tests/fuzz/run.sh [SECONDS] [target...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_obj fuzz_ccd fuzz_ini fuzz_cli fuzz_api)
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false -Dviewer=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all >/dev/null
fi
ninja -C build-fuzz >/dev/null
mkdir -p build-fuzz/findings
results=build-fuzz/results.txt
: >"$results"
status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/${t#fuzz_}
  mkdir -p "$corpus"
  log=build-fuzz/$t.log
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "build-fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 -max_len=4096 \
       -close_fd_mask=3 -artifact_prefix=build-fuzz/findings/"$t"- \
       "$corpus" "tests/fuzz/corpus/${t#fuzz_}" >"$log" 2>&1; then
    execs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
    echo "$t: $execs executions in ${seconds} s, no findings"
    echo "$t ok $execs" >>"$results"
  else
    echo "$t: FINDING (log: $log)"
    echo "$t failed" >>"$results"
    grep -E "ERROR|fuzz check failed|SUMMARY|runtime error" "$log" | head -5
    status=1
  fi
done
exit $status
