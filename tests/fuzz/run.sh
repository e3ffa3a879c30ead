#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer + UBSan) in build-fuzz and runs
# each from the committed seed corpus, as many at once as there are cores. Prints executions
# per target; exits non-zero if any target finds something (the crashing input is left in
# build-fuzz/findings).
#   tests/fuzz/run.sh [SECONDS] [target...]   each target for SECONDS (default 60), random seed
#   tests/fuzz/run.sh --fixed [target...]     each target for a fixed number of executions
#                                             from seed 1 and a fresh corpus, however fast the
#                                             machine, or 300 s if that comes first (CI uses this). libFuzzer's coverage
#                                             feedback still differs a little between runs, so
#                                             two runs do not try exactly the same inputs; a
#                                             finding is reproduced from its saved input.
set -euo pipefail
cd "$(dirname "$0")/../.."
fixed=0
seconds=60
if [ "${1:-}" = "--fixed" ]; then
  fixed=1
  shift
elif [ $# -gt 0 ]; then
  seconds=$1
  shift
fi
targets=("$@")
# Executions per target in --fixed mode: about 45 s each on a 2-core CI machine.
fixed_runs() {
  case $1 in
    fuzz_obj) echo 400000 ;;
    fuzz_ccd) echo 400000 ;;
    fuzz_ini) echo 600000 ;;
    fuzz_cli) echo 150000 ;;
    fuzz_api) echo 10000 ;;
    *) echo 100000 ;;
  esac
}
# The API target first: it runs longest, and the others share the other core meanwhile.
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_api fuzz_obj fuzz_ccd fuzz_ini fuzz_cli)
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false -Dviewer=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all >/dev/null
fi
ninja -C build-fuzz >/dev/null
mkdir -p build-fuzz/findings
results=build-fuzz/results.txt
: >"$results"

# One target: its messages go to build-fuzz/TARGET.summary, its verdict to build-fuzz/TARGET.verdict.
run_target() {
  local t=$1 corpus log start execs
  corpus=build-fuzz/corpus/${t#fuzz_}
  mkdir -p "$corpus"
  log=build-fuzz/$t.log
  if [ $fixed = 1 ]; then
    # A fresh corpus directory each time: what earlier runs added would change the inputs.
    rm -rf "$corpus" && mkdir -p "$corpus"
    # Capped in time as well: the API target's inputs can ask for thousands of substeps, and
    # under the fuzzer's instrumentation its fixed count took from 40 s to over 20 minutes
    # depending on which inputs the coverage feedback led it to.
    budget=(-seed=1 -runs="$(fixed_runs "$t")" -max_total_time=300)
  else
    budget=(-max_total_time="$seconds")
  fi
  rm -f build-fuzz/findings/"$t"-*
  start=$SECONDS
  # Target output (stdout, stderr) is dropped for speed; a fuzz check's message is then
  # seen by re-running the finding: build-fuzz/tests/fuzz/TARGET build-fuzz/findings/FILE
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "build-fuzz/tests/fuzz/$t" "${budget[@]}" -timeout=120 -rss_limit_mb=2048 -max_len=4096 \
       -close_fd_mask=3 -artifact_prefix=build-fuzz/findings/"$t"- \
       "$corpus" "tests/fuzz/corpus/${t#fuzz_}" >"$log" 2>&1; then
    execs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
    echo "$t: $execs executions in $((SECONDS - start)) s, no findings"
    echo "$t ok $execs" >build-fuzz/"$t".verdict
  else
    echo "$t: FINDING (log: $log)"
    echo "$t failed" >build-fuzz/"$t".verdict
    grep -E "ERROR|fuzz check failed|SUMMARY|runtime error" "$log" | head -5
    # Re-run the saved input with the target's own messages shown.
    for f in build-fuzz/findings/"$t"-*; do
      [ -f "$f" ] || continue
      ASAN_OPTIONS=detect_leaks=1 "build-fuzz/tests/fuzz/$t" "$f" 2>&1 |
        grep -E "fuzz check failed|ERROR: AddressSanitizer|runtime error" | head -3 || true
      echo "  input: $f ($(od -An -c -N 120 "$f" | tr -s ' ' | tr -d '\n'))"
    done
  fi
}

# Each target is one process on one core: as many run at once as there are cores, and their
# messages are printed in the targets' order once all have ended.
cores=$(nproc 2>/dev/null || echo 1)
running=0
for t in "${targets[@]}"; do
  rm -f build-fuzz/"$t".verdict
  run_target "$t" >build-fuzz/"$t".summary 2>&1 &
  running=$((running + 1))
  if [ $running -ge "$cores" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
status=0
for t in "${targets[@]}"; do
  cat build-fuzz/"$t".summary
  if [ -f build-fuzz/"$t".verdict ]; then
    cat build-fuzz/"$t".verdict >>"$results"
    grep -q " ok " build-fuzz/"$t".verdict || status=1
  else
    echo "$t failed" >>"$results"
    status=1
  fi
done
exit $status
