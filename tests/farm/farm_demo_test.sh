#!/usr/bin/env bash
# scripts/farm_demo.sh as the README runs it, with both faults: a 3-member etcd cluster, 4
# emulators, all conformance models in 8 shards; one emulator SIGKILLed and one etcd member
# SIGKILLed mid-run. Nothing may fail and nothing may be lost.
# A bad argument is refused before anything starts.
set -uo pipefail
source tests/common/test_helpers.sh
conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
if [ ! -d "$conformance" ]; then
  echo "skip: $conformance is absent"
  exit 0
fi
export NPU_EMULATOR=$PWD/emulator/npu_emulator NNREMOTE=$PWD/tools/nnremote
scripts/farm_demo.sh --cases="$conformance" --kill-emulator-after=3 --kill-etcd-after=5 2>&1 | tee "$TEST_TMPDIR/demo.log"
status=${PIPESTATUS[0]}
check "the demo exits 0" [ "$status" -eq 0 ]
check "every model passed, none lost" grep -Eq '^farm demo: [0-9]+ models: [0-9]+ passed, 0 failed, 0 unsupported, 0 lost' "$TEST_TMPDIR/demo.log"
check "the killed emulator's devices left the pool" grep -q 'its devices left the pool' "$TEST_TMPDIR/demo.log"
check "an etcd member was killed mid-run" grep -q 'killed etcd member' "$TEST_TMPDIR/demo.log"
check "a shard lost its device and carried on elsewhere" grep -q '^Continuing on etcd://' "$TEST_TMPDIR/demo.log"
check "a shard count that is no number is refused before anything starts" bash -c \
  "out=\$(scripts/farm_demo.sh --shards=abc 2>&1); [ \$? -eq 2 ] &&
   [ \"\$out\" = 'farm demo: --shards=abc: must be a whole number from 1 to 1000' ]"
echo "$failures failed"
[ "$failures" -eq 0 ]
