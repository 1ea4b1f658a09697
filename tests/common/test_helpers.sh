# Shell helpers for the sh_tests: `source tests/common/test_helpers.sh` (list
# //tests/common:test_helpers in the test's data).

failures=0

# check DESCRIPTION COMMAND... : the command must succeed; counts failures.
check() {
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

# Headless Chromium as the machine's probe starts it (no network, a fresh profile per test).
chromium=$(command -v chromium || command -v chromium-browser || true)
chromium_flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                --disable-background-networking --disable-component-update --disable-sync
                --user-data-dir="$TEST_TMPDIR/chromium" --hide-scrollbars)

# chromium_dom FILE: the DOM Chromium renders from the page.
chromium_dom() { timeout 120 "$chromium" "${chromium_flags[@]}" --dump-dom "file://$1" 2>/dev/null; }

# chromium_screenshot FILE PNG WIDTH,HEIGHT: the page as a PNG; prints its size in bytes.
chromium_screenshot() {
  timeout 120 "$chromium" "${chromium_flags[@]}" --window-size="$3" --screenshot="$2" "file://$1" > /dev/null 2>&1
  stat -c %s "$2" 2>/dev/null || echo 0
}
