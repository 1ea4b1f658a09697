#!/usr/bin/env bash
# Graph dumps with the real binaries: `nnremote graph` draws MobileNet v1 as DOT and as an HTML
# page that renders in headless Chromium with a box and a simulated cost per operation; and
# npu_emulator --dump-graphs writes every model it is asked to prepare.
set -u
source tests/common/test_helpers.sh

dot=$(tools/nnremote graph --model=mobilenet)
check "DOT has MobileNet's 31 operations" test "$(grep -c 'shape=box' <<<"$dot")" -eq 31
html=$TEST_TMPDIR/mobilenet.html
tools/nnremote graph --model=mobilenet --format=html --output="$html" > /dev/null
check "nnremote graph --format=junk is refused" bash -c "! tools/nnremote graph --format=junk 2>/dev/null"

socket_dir=$(mktemp -d /tmp/nnremote-graph-test.XXXXXX)
trap 'kill $server 2>/dev/null; rm -rf "$socket_dir"' EXIT
emulator/npu_emulator --listen=unix:$socket_dir/s.sock --config=edge16 --dump-graphs="$TEST_TMPDIR/graphs" \
  > /dev/null 2>&1 &
server=$!
for _ in $(seq 1 200); do [ -S "$socket_dir/s.sock" ] && break; sleep 0.05; done
tools/nnremote run-sample --target=unix:$socket_dir/s.sock > /dev/null 2>&1
check "--dump-graphs wrote the sample model as DOT and HTML" \
  test -s "$TEST_TMPDIR/graphs/nnremote-edge16-1.dot" -a -s "$TEST_TMPDIR/graphs/nnremote-edge16-1.html"
check "the dumped DOT has the sample's 6 operations" \
  test "$(grep -c 'shape=box' "$TEST_TMPDIR/graphs/nnremote-edge16-1.dot" 2>/dev/null)" -eq 6

if [ -z "$chromium" ]; then
  echo "skip: chromium is not installed (scripts/setup.sh --with-browser installs it)"
else
  dom=$(chromium_dom "$html")
  boxes=$(grep -o '<g class="operation">' <<<"$dom" | wc -l)
  costs=$(grep -o 'class="cost"' <<<"$dom" | wc -l)
  echo "rendered: $boxes operation boxes, $costs costs"
  check "one box per operation" test "$boxes" -eq 31
  check "a simulated cost on each" test "$costs" -eq 31
  check "a screenshot comes out" test "$(chromium_screenshot "$html" "$TEST_TMPDIR/graph.png" 900,1000)" -gt 5000
fi
[ "$failures" -eq 0 ]
