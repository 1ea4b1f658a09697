#!/usr/bin/env bash
# The C example, built against the NDK header and linked with libneuralnetworks.so, runs as a
# program would: against an npu_emulator named by NNREMOTE_TARGETS (its device and
# nnapi-reference listed, the sum right), and with only an unreachable target (a message, no
# hang, and nnapi-reference computes).
set -u
example=examples/add_two_vectors
emulator=emulator/npu_emulator
source tests/common/test_helpers.sh

socket_dir=$(mktemp -d /tmp/nnremote-example-test.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$socket_dir"' EXIT

$emulator --listen=unix:$socket_dir/npu.sock --config=edge16 > "$TEST_TMPDIR/emulator.log" 2>&1 & pids+=($!)
wait_for_socket "$socket_dir/npu.sock" || exit 1

remote=$(NNREMOTE_TARGETS=unix:$socket_dir/npu.sock timeout 60 $example 2>&1)
status=$?
echo "$remote"
check "the example succeeds against the emulator" test "$status" -eq 0
check "it lists the emulator's device first" grep -q "^device 0: nnremote-edge16" <<<"$remote"
check "and nnapi-reference last" grep -q "^device 1: nnapi-reference" <<<"$remote"
check "the sum is right" grep -qx "out = 11 22 33 44" <<<"$remote"

alone=$(NNREMOTE_TARGETS=unix:$socket_dir/nobody.sock timeout 60 $example 2>&1)
status=$?
echo "$alone"
check "with no server it still succeeds" test "$status" -eq 0
check "saying why the target gave no device" grep -q "no devices from unix:$socket_dir/nobody.sock" <<<"$alone"
check "on nnapi-reference" grep -q "^device 0: nnapi-reference" <<<"$alone"
[ "$failures" -eq 0 ]
