# Shell helpers for the sh_tests: `source tests/common/test_helpers.sh` (list
# //tests/common:test_helpers in the test's data).

failures=0

# check DESCRIPTION COMMAND... : the command must succeed; counts failures.
check() {
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

# wait_for_socket PATH: waits (bounded: 10 s) for a server's unix socket to appear.
wait_for_socket() {
  for _ in $(seq 1 200); do [ -S "$1" ] && return 0; sleep 0.05; done
  echo "no server at $1"; return 1
}

# wait_for_server LOG: waits (bounded: 60 s, for a sanitizer build on a busy machine) until the
# npu_emulator writing LOG announces that it serves ("npu_emulator listening on ..."). Its socket
# appears a moment before that line: waiting for the socket, a check of the line could miss it.
wait_for_server() {
  for _ in $(seq 1 1200); do grep -q "^npu_emulator listening on " "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "no server announced itself in $1"; return 1
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
