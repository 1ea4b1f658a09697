#!/usr/bin/env bash
# Record and replay with the real binaries: npu_emulator --record=DIR under the V1_0 conformance
# models (the sample model when ../shared is absent), then nnremote replay against a fresh
# simulator (everything matches) and against Arm NN (what it supports matches, the rest is
# refused and nothing else differs). The HTML report renders in headless Chromium with one plot
# point per timed model.
set -u
nnremote=tools/nnremote
emulator=emulator/npu_emulator
source tests/common/test_helpers.sh

socket_dir=$(mktemp -d /tmp/nnremote-replay-test.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$socket_dir"' EXIT
recording=$TEST_TMPDIR/recording

$emulator --listen=unix:$socket_dir/rec.sock --config=edge16 --record="$recording" > "$TEST_TMPDIR/rec.log" 2>&1 &
recorder=$!
wait_for_socket "$socket_dir/rec.sock" || exit 1
conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
if [ -d "$conformance/V1_0" ]; then
  $nnremote conform --target=unix:$socket_dir/rec.sock --cases="$conformance/V1_0" > "$TEST_TMPDIR/conform.log" 2>&1
  executions=378 armnn_matched=233
else
  echo "note: $conformance is absent; recording the sample model instead"
  $nnremote run-sample --target=unix:$socket_dir/rec.sock --device=nnremote-edge16 > "$TEST_TMPDIR/conform.log" 2>&1
  executions=1 armnn_matched=1  # the sample CNN lowers to Arm NN
fi
kill -TERM $recorder; wait $recorder
check "the recording is a .nnrec file" bash -c "ls '$recording'/*.nnrec >/dev/null"

$emulator --listen=unix:$socket_dir/sim.sock --config=edge16 > /dev/null 2>&1 & pids+=($!)
$emulator --listen=unix:$socket_dir/armnn.sock --backend=drivers/armnn/armnn_backend.so:CpuRef > /dev/null 2>&1 & pids+=($!)
wait_for_socket "$socket_dir/sim.sock" && wait_for_socket "$socket_dir/armnn.sock" || exit 1

sim=$($nnremote replay --recording="$recording" --target=unix:$socket_dir/sim.sock 2>&1)
check "the simulator matches its own recording" \
  grep -qx "$executions replayed, $executions matched, 0 differed" <<<"$sim"

html=$TEST_TMPDIR/replay.html
armnn=$($nnremote replay --recording="$recording" --target=unix:$socket_dir/armnn.sock --device=armnn-cpuref \
        --html="$html" 2>&1)
summary=$(tail -1 <<<"$armnn")
echo "Arm NN: $summary"
refused=$((executions - armnn_matched))
if [ "$refused" -gt 0 ]; then
  want="$executions replayed, $armnn_matched matched, $refused differed ($refused of them on models the device refused)"
else
  want="$executions replayed, $executions matched, 0 differed"
fi
check "Arm NN matches what it supports and refuses the rest" test "$summary" = "$want"

if [ -z "$chromium" ]; then
  echo "skip: chromium is not installed (scripts/setup.sh --with-browser installs it)"
else
  dom=$(chromium_dom "$html")
  points=$(grep -o '<circle class="model"' <<<"$dom" | wc -l)
  rows=$(grep -o '<tr class="differed"' <<<"$dom" | wc -l)
  echo "rendered: $points plot points, $rows differing rows"
  timed=$armnn_matched; [ "$refused" -eq 0 ] && timed=$executions
  check "one plot point per model timed on both sides" test "$points" -eq "$timed"
  check "one highlighted row per refused model" test "$rows" -eq "$refused"
  check "the summary is on the page" grep -q "$want" <<<"$dom"
  check "a screenshot comes out" test "$(chromium_screenshot "$html" "$TEST_TMPDIR/replay.png" 1000,1300)" -gt 5000
fi
[ "$failures" -eq 0 ]
