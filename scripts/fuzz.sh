#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan+UBSan; --config=fuzz) and runs each for a while
# on a corpus seeded from ../shared/conformance (docs/fuzzing.md).
#   scripts/fuzz.sh [--seconds=S] [--jobs=J] [--targets-at-once=T] [--seed=N] [--seed-stride=K] [TARGET...]
# Defaults: 30 s per target, 1 job, one target at a time, a random seed, every seed input, every
# target. --targets-at-once=T runs T targets side by side (CI's smoke: one per core). --seed-stride=K
# starts from every K-th seed input only (CI's smoke: loading all 9,374 under ASan took longer
# than the fuzzing). Corpora grow in $NNREMOTE_FUZZ_DIR
# (default /tmp/nnremote-fuzz); a crash is written there as crash-* and fails the run.
# The last line is "fuzz: N passed, N failed" with each target's execution count above it.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=30 jobs=1 at_once=1 seed=0 stride=1 targets=()
for arg in "$@"; do
  case $arg in
    --seconds=*) seconds=${arg#*=} ;;
    --jobs=*) jobs=${arg#*=} ;;
    --targets-at-once=*) at_once=${arg#*=} ;;
    --seed=*) seed=${arg#*=} ;;
    --seed-stride=*) stride=${arg#*=} ;;
    --help) sed -n 2,12p "$0"; exit 0 ;;
    *) targets+=("$arg") ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(wire_fuzzer hal_model_fuzzer shared_queue_fuzzer cache_fuzzer model_validation_fuzzer c_api_fuzzer session_fuzzer)
work=${NNREMOTE_FUZZ_DIR:-/tmp/nnremote-fuzz}
mkdir -p "$work"

bazel build --config=fuzz "${targets[@]/#///tests/fuzz:}" || exit 1
bin=bazel-out/k8-fastbuildasan/bin/tests/fuzz
if [ -d ../shared/conformance ] && [ ! -d "$work/seeds" ]; then
  # shellcheck disable=SC2086  # NNREMOTE_BAZEL_FLAGS: flags of the normal build, set by run_tests.sh
  bazel build ${NNREMOTE_BAZEL_FLAGS:-} //tests/fuzz:make_fuzz_corpus &&
    "$(bazel info ${NNREMOTE_BAZEL_FLAGS:-} bazel-bin 2>/dev/null)/tests/fuzz/make_fuzz_corpus" "$work/seeds" ../shared/conformance
fi

# Every K-th file of a seed directory, hard-linked into a sibling directory (same file system).
sampled() {
  local from=$1 to=$1.every$stride
  if [ "$stride" -le 1 ]; then echo "$from"; return; fi
  if [ ! -d "$to" ]; then
    mkdir -p "$to"
    find "$from" -maxdepth 1 -type f | sort -V | awk -v k="$stride" 'NR % k == 1' |
      xargs -r ln -t "$to"
  fi
  echo "$to"
}

# Fuzzes one target into $work/$target.result: its line for the summary, then any sanitizer
# lines, and exits with the fuzzer's status. Each target works in a folder of its own, where
# libFuzzer's -jobs mode writes its fuzz-N.log files, so targets can run side by side.
fuzz_one() {
  local target=$1 corpus=$work/corpus/$1 run=$work/run/$1 log=$work/$1.log seeds=() limits=() parallel=() counted=()
  mkdir -p "$corpus" "$run"
  case $target in
    wire_fuzzer) [ -d "$work/seeds/wire" ] && seeds=("$(sampled "$work/seeds/wire")") ;;
    shared_queue_fuzzer) [ -d "$work/seeds/shared_queue" ] && seeds=("$(sampled "$work/seeds/shared_queue")") ;;
    cache_fuzzer) [ -d "$work/seeds/cache" ] && seeds=("$(sampled "$work/seeds/cache")") ;;
    # Models up to 16 KiB: mutating the small conformance models is where its executions pay
    # (a MobileNet seed costs seconds under ASan and parses no better for being mutated).
    model_validation_fuzzer | c_api_fuzzer) [ -d "$work/seeds/model" ] && seeds=("$(sampled "$work/seeds/model")"); limits=(-max_len=16384) ;;
    # Unseeded, with room for its 32 calls from the start (libFuzzer would grow inputs slowly).
    session_fuzzer) limits=(-max_len=1024 -len_control=0) ;;
  esac
  rm -f "$run"/fuzz-*.log
  # One input is a hang only after a minute: the kernels' work limits allow about half a second
  # at -O2, which ASan, UBSan and coverage make 15 to 25 times slower (a ROI_ALIGN of 0.32 s
  # took 7 s), and more on a busy machine.
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  (cd "$run" && "$root/$bin/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=60 -seed="$seed" -artifact_prefix="$work/" \
     "${parallel[@]}" "${limits[@]}" -print_final_stats=1 "$corpus" "${seeds[@]}") > "$log" 2>&1
  local status=$?
  if [ "$jobs" -gt 1 ]; then counted=("$run"/fuzz-*.log); else counted=("$log"); fi
  local runs
  runs=$(grep -h "stat::number_of_executed_units" "${counted[@]}" 2>/dev/null | awk '{s += $2} END {print s + 0}')
  if [ $status -eq 0 ]; then
    echo "fuzz: $target ok, $runs executions in ${seconds} s" > "$work/$target.result"
  else
    { echo "fuzz: $target FAILED (status $status); see $log"
      grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5; } > "$work/$target.result"
  fi
  return $status
}

root=$PWD
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$at_once" ]; then
    wait -n
    running=$((running - 1))
  fi
  rm -f "$work/$target.result"
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

passed=0 failed=0
for target in "${targets[@]}"; do
  cat "$work/$target.result" 2>/dev/null || echo "fuzz: $target FAILED (no result)"
  if grep -q "^fuzz: $target ok" "$work/$target.result" 2>/dev/null; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
