#!/usr/bin/env bash
# nnremote bench writes a report that renders in headless Chromium with all its plots, and JSON
# whose numbers agree with the summary line.
set -u
source tests/common/test_helpers.sh
if [ -z "$chromium" ]; then
  echo "skip: chromium is not installed (scripts/setup.sh --with-browser installs it)"
  exit 0
fi
html="$TEST_TMPDIR/bench.html" json="$TEST_TMPDIR/bench.json"
tools/nnremote bench --model=mobilenet-quant8 --clients=2 --seconds=2 --html="$html" --json="$json" \
  > "$TEST_TMPDIR/bench.log" 2>&1
status=$?
cat "$TEST_TMPDIR/bench.log"
check "bench exits 0" [ "$status" -eq 0 ]
executions=$(sed -n 's/^executions=\([0-9]*\) errors=0 .*/\1/p' "$TEST_TMPDIR/bench.log")
check "the summary line counts executions" [ -n "$executions" ] && [ "$executions" -gt 0 ]
check "the JSON agrees with the summary" grep -q "\"succeeded\": $executions," "$json"
check "the JSON has latency percentiles" grep -q '"latency_us": {"p50": [0-9]*, "p90"' "$json"
check "the JSON has the per-operation breakdown" grep -q '"type": "CONV_2D"' "$json"

dom=$(chromium_dom "$html")
for id in histogram throughput device-vs-wall operations; do
  check "the page renders the $id plot" grep -q "<svg id=\"$id\"" <<<"$dom"
done
bars=$(grep -o '<rect class="bar"' <<<"$dom" | wc -l)
check "the histogram has bins and the breakdown has operation types ($bars bars)" [ "$bars" -gt 24 ]
lines=$(grep -o '<polyline class="series"' <<<"$dom" | wc -l)
check "throughput, wall time and device time are lines" [ "$lines" -eq 3 ]
check "the percentile table is there" grep -q '<table id="percentiles">' <<<"$dom"
size=$(chromium_screenshot "$html" "$TEST_TMPDIR/bench.png" 1000,1700)
check "a screenshot comes out ($size bytes)" [ "$size" -gt 20000 ]
# Before the run, not after an hour of it (the timeout would end the old behaviour's run).
check "a report that cannot be written is an error before the run, with the reason" \
  sh -c "timeout 60 tools/nnremote bench --seconds=3600 --html=/nonexistent/dir/x.html 2>&1 |
         grep -q -- '--html: cannot write /nonexistent/dir/x.html: No such file or directory'"
check "bench requires --html" sh -c "tools/nnremote bench --seconds=1 2>&1 | grep -q -- '--html=FILE is required'"
echo "$failures failed"
[ "$failures" -eq 0 ]
