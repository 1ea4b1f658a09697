#!/usr/bin/env bash
# Every test: installs what is missing, runs the tests, and ends with the line
# "N passed, N failed[, N skipped]" counted over individual test cases (gtest cases, and one per
# shell test) read from each test target's test.xml.
# With the conformance data (../shared/conformance, or NNREMOTE_CONFORMANCE_DIR), the fast tests
# run under AddressSanitizer + UBSan (--config=asan) and the others, the long conformance suites
# among them, with the normal build (`bazel test //...` without the fast ones). Without it those
# suites skip, nothing needs the normal build's speed, and every test runs under ASan + UBSan:
# one compile of everything instead of two.
# Then each fuzz target runs for 20 s from every 8th seed (scripts/fuzz.sh), one case each in
# the count, and the aarch64 cross-build with its qemu smoke run (scripts/build_arm64.sh --ci),
# one case per check. Just above the final line it names each failed case with the start of its
# failure, since CI shows only a run's tail.
# NNREMOTE_SKIP_ASAN=1 runs every test with the normal build instead, NNREMOTE_SKIP_FUZZ=1 leaves
# out the fuzz smoke, NNREMOTE_SKIP_ARM64=1 the arm64 checks.
set -uo pipefail
cd "$(dirname "$0")/.."
# The arm64 checks' packages too, in the same apt transaction (scripts/setup.sh says why). If
# they cannot be installed, the rest still is, and the arm64 checks fail on their own below.
if [ "${NNREMOTE_SKIP_ARM64:-0}" = 1 ] || ! scripts/setup.sh --with-browser --with-arm64; then
  scripts/setup.sh --with-browser || exit 1
fi

# The fast tests run once, under AddressSanitizer + UBSan; the rest (the long conformance and
# benchmark-shaped suites, and the few below) with the normal build (docs/build.md). Compiling
# the fast tests once, not twice, is a good part of what keeps CI within its time.
asan_targets=(//tests/hal/... //tests/wire/... //tests/emulator/... //tests/drivers/proxy/... //tests/middleware/...
              //tests/runtime/... //tests/drivers/sim:kernels_test //tests/drivers/sim:compiled_artifact_test)
# metrics_test drives the nnremote binary, which would build all of tools/ under ASan too.
# c_api_conformance_test and c_api_partitioning_test are conformance suites (the C API's own
# checks are c_api_semantics_test and partitioning_test), and c_api_unknown_dimensions_test is
# Android's matrix of some 14,000 executions through a server (70 s under ASan, the slowest
# there). backend_isolation_unsanitized_test checks what ASan would do itself (a signal stack for
# every thread).
not_under_asan=(//tests/emulator:metrics_test //tests/runtime:c_api_conformance_test
                //tests/runtime:c_api_partitioning_test //tests/runtime:c_api_unknown_dimensions_test
                //tests/emulator:backend_isolation_unsanitized_test)

passed=0 failed=0 skipped=0
failures=$(mktemp)  # one line per failed case, printed at the end
trap 'rm -f "$failures"' EXIT
elapsed() { echo "$SECONDS s in"; }  # since the script started, setup included

# Runs `bazel test ARGS...` and adds its test cases to the totals. The counting reads
# bazel-testlogs right away: the next run with another configuration moves that link.
run_and_count() {
  local log bazel_status
  log=$(mktemp)
  bazel test --test_summary=short "$@" 2>&1 | tee "$log"
  bazel_status=${PIPESTATUS[0]}
  local run_failed=0
  while read -r target status; do
    logs="bazel-testlogs/${target#//}"; logs="${logs/://}"
    # A sharded target (shard_count) has a test.xml per shard: shard_K_of_N, and not the
    # shard_K_of_N_run_R_of_M that an earlier --runs_per_test left beside them.
    xmls=("$logs/test.xml")
    if [ ! -f "$logs/test.xml" ]; then
      xmls=()
      for xml in "$logs"/shard_*_of_*/test.xml; do
        [[ "$xml" =~ /shard_[0-9]+_of_[0-9]+/test\.xml$ ]] && xmls+=("$xml")
      done
      [ ${#xmls[@]} -gt 0 ] || xmls=("$logs/test.xml")
    fi
    if [ "$status" != PASSED ] && [ "$status" != FAILED ] || [ ! -f "${xmls[0]}" ]; then
      echo "counted as failed: $target ($status)"
      echo "$target: $status" >>"$failures"
      run_failed=$((run_failed + 1))
      continue
    fi
    # Count test cases, not assertions: a case with several <failure> elements failed once.
    read -r cases bad skip < <(awk '
      FNR == 1      { open = 0 }
      /<testcase /  { cases++; open = ($0 !~ /\/>[[:space:]]*$/); failed = 0 }
      /<(failure|error)[ >]/ { if (open && !failed) { bad++; failed = 1 } }
      /<skipped/    { if (open) skip++ }
      /<\/testcase>/ { open = 0 }
      END { print cases + 0, bad + 0, skip + 0 }' "${xmls[@]}")
    [ "$status" = FAILED ] && [ "$bad" -eq 0 ] && bad=1
    if [ "$bad" -gt 0 ]; then
      # Each failed case's name and the start of its first failure (gtest's message attribute).
      awk -v target="$target" '
        /<testcase / { match($0, / name="[^"]*"/); name = substr($0, RSTART + 7, RLENGTH - 8); reported = 0
                       if (match($0, / classname="[^"]*"/)) name = substr($0, RSTART + 12, RLENGTH - 13) "." name }
        /<(failure|error)[ >]/ && !reported {
          match($0, /message="[^"]*"/); message = substr($0, RSTART + 9, RLENGTH - 10)
          gsub(/&#x0A;/, " | ", message); gsub(/&quot;/, "\"", message)
          print target ": " name ": " substr(message, 1, 240); reported = 1 }' "${xmls[@]}" >>"$failures"
      # A shell test's test.xml says only how it exited; its checks' FAIL lines say what failed
      # (tests/common/test_helpers.sh).
      for xml in "${xmls[@]}"; do
        grep -h '^FAIL: ' "${xml%test.xml}test.log" 2>/dev/null | head -3 | sed "s|^|$target: |" >>"$failures"
      done
      [ "$status" = FAILED ] && ! grep -qF "$target: " "$failures" && echo "$target: FAILED ($status)" >>"$failures"
    fi
    passed=$((passed + cases - bad - skip))
    run_failed=$((run_failed + bad))
    skipped=$((skipped + skip))
  done < <(grep -E '^//[^ ]+ +(\(cached\) )?[A-Z]' "$log" |
           sed -E 's/\(cached\) //' | awk '{print $1, $2}' | grep -E ' (PASSED|FAILED|NO|TIMEOUT|FLAKY|INCOMPLETE)')
  rm -f "$log"
  if [ "$bazel_status" -ne 0 ] && [ "$run_failed" -eq 0 ]; then
    echo "bazel test $* exited with $bazel_status"
    echo "bazel test exited with $bazel_status (a build error?)" >>"$failures"
    run_failed=1
  fi
  failed=$((failed + run_failed))
}

if [ "${NNREMOTE_SKIP_ASAN:-0}" = 1 ]; then
  echo "== every test ($(elapsed)) =="
  run_and_count "$@" -- //...
elif [ -z "${NNREMOTE_CONFORMANCE_DIR:-}" ] && [ ! -d ../shared/conformance ]; then
  echo "== every test under AddressSanitizer + UBSan: no conformance data, so no suite needs the normal build's speed ($(elapsed)) =="
  # fuzz.sh and build_arm64.sh build their host tools in this build too.
  export NNREMOTE_BAZEL_FLAGS=--config=asan
  run_and_count $NNREMOTE_BAZEL_FLAGS "$@" -- //...
else
  echo "== the fast tests under AddressSanitizer + UBSan ($(elapsed)) =="
  run_and_count --config=asan -- "${asan_targets[@]}" "${not_under_asan[@]/#/-}"
  echo "== the other tests ($(elapsed)) =="
  # At -O1: gcc compiles our files in about 75% of -O2's time (their headers dominate), and the
  # suites run here spend their time in round trips, not in loops -O2 would speed up.
  # NNREMOTE_BAZEL_FLAGS tells fuzz.sh and build_arm64.sh, which build host tools (the fuzz
  # corpus maker, nnremote) this run already built, to ask for the same build, not a new one.
  export NNREMOTE_BAZEL_FLAGS=--copt=-O1
  run_and_count $NNREMOTE_BAZEL_FLAGS "$@" -- //... "${asan_targets[@]/#/-}" "${not_under_asan[@]}"
fi

if [ "${NNREMOTE_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz smoke: each target for 20 s, one per core at a time ($(elapsed)) =="
  fuzz_log=$(mktemp)
  # A fixed seed: the smoke explores the same inputs on every run, so it flags regressions rather
  # than whatever the fuzzer happens to find that day (scripts/fuzz.sh is for that).
  NNREMOTE_FUZZ_DIR=$(mktemp -d) scripts/fuzz.sh --seconds=20 --targets-at-once="$(nproc)" --seed=1 --seed-stride=8 2>&1 | tee "$fuzz_log"
  read -r fuzz_passed fuzz_failed < <(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$fuzz_log")
  if [ -z "${fuzz_passed:-}" ]; then fuzz_passed=0 fuzz_failed=1; echo "fuzz smoke: no summary line" >>"$failures"; fi
  # Each failed target with the sanitizer's summary lines fuzz.sh prints under it.
  grep -E -A5 '^fuzz: .* FAILED' "$fuzz_log" | grep -E '^fuzz: .* FAILED|ERROR|SUMMARY|Test unit written' >>"$failures"
  passed=$((passed + fuzz_passed))
  failed=$((failed + fuzz_failed))
  rm -f "$fuzz_log"
fi

if [ "${NNREMOTE_SKIP_ARM64:-0}" != 1 ]; then
  echo "== arm64: cross-build, and an isolated backend host under qemu ($(elapsed)) =="
  arm64_log=$(mktemp)
  scripts/build_arm64.sh --ci 2>&1 | tee "$arm64_log"
  read -r arm64_passed arm64_failed < <(sed -n 's/^arm64: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$arm64_log")
  if [ -z "${arm64_passed:-}" ]; then arm64_passed=0 arm64_failed=1; echo "arm64: no summary line" >>"$failures"; fi
  grep -E '^arm64: .* FAILED' "$arm64_log" >>"$failures"
  passed=$((passed + arm64_passed))
  failed=$((failed + arm64_failed))
  rm -f "$arm64_log"
fi

echo "== done ($(elapsed)) =="
if [ -s "$failures" ]; then
  echo "failed:"
  sed 's/^/  /' "$failures"
fi
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
