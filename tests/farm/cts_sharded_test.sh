#!/usr/bin/env bash
# The whole conformance set across a farm's pool: Bazel runs this target's shards (shard_count)
# at once, and each runs its slice (nnremote conform reads TEST_SHARD_INDEX/TEST_TOTAL_SHARDS)
# on a device of the pool it holds exclusively. Each shard's JUnit XML goes to its undeclared
# outputs (conform-shard-I.xml).
# With NNREMOTE_FARM=etcd://ENDPOINTS/POOL (bazel test --test_env=NNREMOTE_FARM=...), the shards
# share that pool; without it each shard starts a farm of its own (one etcd, one emulator).
set -uo pipefail
conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
if [ ! -d "$conformance" ]; then
  echo "skip: $conformance is absent"
  exit 0
fi
export NPU_EMULATOR=$PWD/emulator/npu_emulator NNREMOTE=$PWD/tools/nnremote
source scripts/farm_lib.sh
trap farm_stop EXIT
pool_target=${NNREMOTE_FARM:-}
if [ -z "$pool_target" ]; then
  command -v etcd > /dev/null || { echo "FAIL: etcd is not installed (scripts/setup.sh: etcd-server)"; exit 1; }
  farm_start_etcd "$TEST_TMPDIR" 1 || exit 1
  farm_start_emulators "$TEST_TMPDIR" 1 shard --config=edge16 || exit 1
  pool_target="etcd://$FARM_ETCD/shard"
fi
shard=${TEST_SHARD_INDEX:-0}
"$NNREMOTE" conform --target="$pool_target?exclusive=1" --wait=300s --cases="$conformance" \
  --junit="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/conform-shard-$shard.xml" | tee "$TEST_TMPDIR/conform.log"
status=${PIPESTATUS[0]}
last=$(tail -n 1 "$TEST_TMPDIR/conform.log")
[ -f "$TEST_SHARD_STATUS_FILE" ] || { echo "FAIL: nnremote conform did not touch TEST_SHARD_STATUS_FILE"; exit 1; }
[[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]] || { echo "FAIL: $last"; exit 1; }
exit "$status"
