#!/usr/bin/env bash
# The HTML timeline of a MobileNet v1 trace renders in headless Chromium: every operation
# becomes an SVG slice in the rendered DOM, and a screenshot comes out.
set -u
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "skip: chromium is not installed (scripts/setup.sh --with-browser installs it)"
  exit 0
fi
html="$TEST_TMPDIR/mobilenet.html"
tools/nnremote trace --model=mobilenet-quant8 --html="$html" > "$TEST_TMPDIR/trace.log" || {
  cat "$TEST_TMPDIR/trace.log"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$TEST_TMPDIR/chromium" --hide-scrollbars)
dom=$(timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$html" 2>/dev/null)
slices=$(grep -o '<g class="op">' <<<"$dom" | wc -l)
echo "rendered slices: $slices"
[ "$slices" -eq 31 ] || { echo "FAIL: expected 31 operation slices in the rendered DOM"; exit 1; }
timeout 120 "$chromium" "${flags[@]}" --window-size=1430,330 --screenshot="$TEST_TMPDIR/timeline.png" \
  "file://$html" > /dev/null 2>&1
size=$(stat -c %s "$TEST_TMPDIR/timeline.png" 2>/dev/null || echo 0)
echo "screenshot: $size bytes"
[ "$size" -gt 5000 ] || { echo "FAIL: no screenshot"; exit 1; }
