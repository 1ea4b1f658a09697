#!/usr/bin/env bash
# Replays every fuzz target over the findings kept in tests/fuzz/regressions/TARGET/ (each one a
# bug that was fixed) and over a seed corpus made from ../shared/conformance, in the normal
# build. Any crash fails the test.
set -u
failures=0
corpus=$TEST_TMPDIR/corpus
conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
if [ -d "$conformance" ]; then
  tests/fuzz/make_fuzz_corpus "$corpus" "$conformance" || failures=$((failures + 1))
else
  echo "skip: $conformance is absent; replaying the kept findings only"
fi
for target in wire_fuzzer hal_model_fuzzer shared_queue_fuzzer cache_fuzzer model_validation_fuzzer c_api_fuzzer session_fuzzer; do
  inputs=()
  [ -d tests/fuzz/regressions/$target ] && inputs+=(tests/fuzz/regressions/$target)
  case $target in
    wire_fuzzer) [ -d "$corpus/wire" ] && inputs+=("$corpus/wire") ;;
    shared_queue_fuzzer) [ -d "$corpus/shared_queue" ] && inputs+=("$corpus/shared_queue") ;;
    cache_fuzzer) [ -d "$corpus/cache" ] && inputs+=("$corpus/cache") ;;
    model_validation_fuzzer | c_api_fuzzer) [ -d "$corpus/model" ] && inputs+=("$corpus/model") ;;
  esac
  if out=$(tests/fuzz/$target "${inputs[@]}" 2>&1); then
    echo "ok: $target: $(tail -1 <<<"$out")"
  else
    echo "FAIL: $target"; echo "$out" | tail -20
    failures=$((failures + 1))
  fi
done
[ $failures -eq 0 ]
