#!/usr/bin/env bash
# npu_emulator --metrics: the page parses with Prometheus' own promtool, and its counters agree
# with what clients ran: executions by status, bytes by transport, nothing left open after.
set -uo pipefail
source tests/common/test_helpers.sh
emulator=emulator/npu_emulator nnremote=tools/nnremote
# A directory of our own: $$ is not unique across sandboxes (PID namespaces), and TEST_TMPDIR
# is too long for a unix socket path.
socket_dir=$(mktemp -d /tmp/nnremote-metrics.XXXXXX)
socket=$socket_dir/emulator.sock
$emulator --listen=unix:$socket --metrics=127.0.0.1:0 > "$TEST_TMPDIR/emulator.log" 2>&1 &
emulator_pid=$!
trap 'kill -9 $emulator_pid 2>/dev/null; rm -rf "$socket_dir"' EXIT
# The port the emulator prints for its metrics, waiting (bounded) until it does.
metrics_port() {
  for _ in $(seq 1 200); do
    port=$(sed -n 's|^npu_emulator: metrics at http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$TEST_TMPDIR/emulator.log")
    [ -n "$port" ] && return
    sleep 0.05
  done
}
metrics_port
check "the emulator prints where its metrics are" [ -n "$port" ]

# GET /metrics over bash's /dev/tcp (no curl on a bare machine).
scrape() {
  exec 3<> "/dev/tcp/127.0.0.1/$port"
  printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
  sed '1,/^\r$/d' <&3
  exec 3>&-
}
# value NAME{LABELS}: the sample's value, 0 if absent.
value() { awk -v name="$1" '$1 == name { print $2; found = 1 } END { if (!found) print 0 }' "$TEST_TMPDIR/metrics.txt"; }

conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
cases=tests/conformance/extensions
[ -d "$conformance/V1_0" ] && cases=$conformance/V1_0
$nnremote conform --target=unix:$socket --cases="$cases" > "$TEST_TMPDIR/sync.log"
$nnremote conform --target=unix:$socket --cases="$cases" --memory=shm > "$TEST_TMPDIR/shm.log"
$nnremote conform --target=unix:$socket --cases="$cases" --executor=burst > "$TEST_TMPDIR/burst.log"
# The runs above fill the transport counters; the execution counts are checked on a load whose
# every execution succeeded (conform's expect-failure models end in errors on purpose).
scrape > "$TEST_TMPDIR/before.txt"
$nnremote load --target=unix:$socket --device=nnremote-edge16 --clients=2 --seconds=1 > "$TEST_TMPDIR/load.log"
loaded=$(sed -n 's/^priority=medium clients=2 executions=\([0-9]*\) errors=0 .*/\1/p' "$TEST_TMPDIR/load.log")
$nnremote run-sample --target=unix:$socket --device=nnremote-edge16 --deadline-us=5 > /dev/null 2>&1

scrape > "$TEST_TMPDIR/metrics.txt"
check "promtool check metrics accepts the page" sh -c "promtool check metrics < '$TEST_TMPDIR/metrics.txt'"
succeeded_in() { grep -E '^nnremote_executions_total\{.*status="NONE"' "$1" | awk '{s += $2} END {print s + 0}'; }
latency_count_in() { awk '$1 == "nnremote_execution_latency_seconds_count{device=\"nnremote-edge16\"}" { print $2 }' "$1"; }
succeeded=$(( $(succeeded_in "$TEST_TMPDIR/metrics.txt") - $(succeeded_in "$TEST_TMPDIR/before.txt") ))
echo "load ran ${loaded:-?} executions without error; executions_total{status=NONE} grew by $succeeded"
check "successful executions grew by exactly the load's executions" [ "$succeeded" -eq "${loaded:--1}" ]
check "a deadline miss is counted by its status" \
  [ "$(value 'nnremote_executions_total{device="nnremote-edge16",priority="medium",status="MISSED_DEADLINE_PERSISTENT"}')" = 1 ]
check "inline bytes came in" [ "$(value 'nnremote_transfer_bytes_total{direction="in",transport="inline"}')" != 0 ]
check "shared-memory bytes came in" [ "$(value 'nnremote_transfer_bytes_total{direction="in",transport="shared_memory"}')" != 0 ]
check "results went out in shared memory too" [ "$(value 'nnremote_transfer_bytes_total{direction="out",transport="shared_memory"}')" != 0 ]
check "device time was counted" [ "$(value 'nnremote_device_time_seconds_total{device="nnremote-edge16"}')" != 0 ]
check "the latency histogram counts every execution, the deadline miss too" \
  [ $(( $(latency_count_in "$TEST_TMPDIR/metrics.txt") - $(latency_count_in "$TEST_TMPDIR/before.txt") )) -eq $((${loaded:--2} + 1)) ]
check "no session is left open" [ "$(value nnremote_sessions)" = 0 ]
check "nothing is queued ahead of the clock once the clients are done" [ "$(value 'nnremote_jobs_ahead{device="nnremote-edge16"}')" = 0 ]
check "no prepared model is left" [ "$(value 'nnremote_prepared_models{device="nnremote-edge16"}')" = 0 ]

# A session held open shows: looked for while the load runs (its clients may take a moment to
# connect under a sanitizer), not after a fixed pause.
$nnremote load --target=unix:$socket --clients=2 --seconds=3 > /dev/null 2>&1 &
load_pid=$!
for _ in $(seq 1 300); do
  scrape > "$TEST_TMPDIR/metrics.txt"
  [ "$(value nnremote_sessions)" -ge 2 ] || ! kill -0 $load_pid 2>/dev/null && break
  sleep 0.05
done
check "open sessions are counted" [ "$(value nnremote_sessions)" -ge 2 ]
wait $load_pid

check "a port already taken is refused at start" \
  sh -c "$emulator --listen=unix:$socket-2 --metrics=127.0.0.1:$port 2>&1 | grep -q 'cannot serve metrics at 127.0.0.1:$port'"
# A backend host that crashes shows: up, restarts and the cause, in a page promtool accepts.
kill -9 $emulator_pid
$emulator --listen=unix:$socket-3 --metrics=127.0.0.1:0 \
  --backend=tests/emulator/backends/crashing_backend.so:segfault:0 > "$TEST_TMPDIR/emulator.log" 2>&1 &
emulator_pid=$!
metrics_port
$nnremote run-sample --target=unix:$socket-3 --device=crashtest-edge16 > "$TEST_TMPDIR/crash.log" 2>&1
check "the client of the crashed backend host got DEAD_OBJECT naming the cause" \
  grep -q 'DEAD_OBJECT.*killed by SIGSEGV' "$TEST_TMPDIR/crash.log"
for _ in $(seq 1 200); do
  scrape > "$TEST_TMPDIR/metrics.txt"
  [ "$(value 'nnremote_backend_host_up{device="crashtest-edge16"}')" = 1 ] && break
  sleep 0.05
done
check "promtool check metrics accepts the backend host metrics" sh -c "promtool check metrics < '$TEST_TMPDIR/metrics.txt'"
check "the backend host is up again" [ "$(value 'nnremote_backend_host_up{device="crashtest-edge16"}')" = 1 ]
check "its restart is counted" [ "$(value 'nnremote_backend_host_restarts_total{device="crashtest-edge16"}')" = 1 ]
check "the last exit's cause is a label" \
  grep -q '^nnremote_backend_host_last_exit_info{device="crashtest-edge16",cause="killed by SIGSEGV in IPreparedModel::execute"} 1' \
  "$TEST_TMPDIR/metrics.txt"
check "it is not given up on" \
  [ "$(value 'nnremote_backend_host_unavailable{device="crashtest-edge16",reason=""}')" = 0 ]
echo "$failures failed"
[ "$failures" -eq 0 ]
