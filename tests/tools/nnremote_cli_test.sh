#!/usr/bin/env bash
# Drives the real binaries as a user would: npu_emulator on a unix socket, nnremote against it
# and against its own in-process emulator, and a client of a killed server.
set -u
source tests/common/test_helpers.sh
nnremote=tools/nnremote
emulator=emulator/npu_emulator

check "nnremote --help explains every flag" bash -c \
  "$nnremote --help | grep -q -- --target= && $nnremote --help | grep -q -- --cases= &&
   $nnremote --help | grep -q -- --junit= && $nnremote --help | grep -q -- --device="
check "npu_emulator --help explains --listen and --config" bash -c \
  "$emulator --help | grep -q -- --listen= && $emulator --help | grep -q -- --config="
check "unknown flags are refused with exit code 2" bash -c \
  "$emulator --frobnicate >/dev/null 2>&1; [ \$? -eq 2 ]"
check "an unknown command exits 2 naming the commands, and farm alone its two" bash -c \
  "$nnremote frobnicate 2>&1 | grep -q \"unknown command 'frobnicate'; the commands: devices, run-sample, \" &&
   $nnremote farm 2>&1 | grep -q \"farm takes list or wait\" && { $nnremote farm >/dev/null 2>&1; [ \$? -eq 2 ]; }"
check "an unknown preset is refused" bash -c \
  "$emulator --config=edge16,huge >/dev/null 2>&1; [ \$? -eq 2 ]"
check "an unknown pacing mode is refused" bash -c \
  "$emulator --pace=warp >/dev/null 2>&1; [ \$? -eq 2 ]"
check "an unknown VLOG tag is refused by both binaries" bash -c \
  "$emulator --vlog=compilation,nope 2>&1 | grep -q \"unknown VLOG tag 'nope'\" &&
   $nnremote run-sample --vlog=nope >/dev/null 2>&1; [ \$? -eq 2 ]"
vlog=$($nnremote run-sample --device=nnremote-edge16 --vlog=compilation,execution,wire 2>&1 >/dev/null)
check "--vlog logs the proxy driver's wire, compilation and execution lines" bash -c \
  "grep -q '^nnremote V wire .* connection.cc:[0-9]*\\] connecting to' <<<\"\$0\" &&
   grep -q '^nnremote V compilation .* proxy_device.cc:[0-9]*\\] prepareModel on nnremote-edge16' <<<\"\$0\" &&
   grep -q '^nnremote V execution .* proxy_prepared_model.cc:[0-9]*\\] execute in session' <<<\"\$0\"" "$vlog"
check "without --vlog nothing is logged" bash -c \
  "! $nnremote run-sample --device=nnremote-edge16 2>&1 >/dev/null | grep -q '^nnremote V'"

out=$($nnremote run-sample 2>&1)
check "run-sample prints devices, outputs, shapes and timing" bash -c \
  "grep -q nnremote-edge16 <<<'$out' && grep -q nnremote-large128 <<<'$out' &&
   grep -q 'output shape 0: \[1, 4\]' <<<'$out' && grep -q 'timeOnDevice: .* us' <<<'$out'"

# A crash of nnremote says where, as the server's does: a farm's shard that dies leaves its
# report in the log. `farm wait` on a port where no etcd listens retries until its --wait; once
# it catches SIGSEGV (its handlers are installed), the signal is sent. Under ASan, whose own
# SIGSEGV handler is there from the start, that would not say ours is: handle_segv=0 leaves it
# to ours.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 $nnremote farm wait --etcd=127.0.0.1:9 --pool=crash --devices=1 --wait=120s > "$TEST_TMPDIR/crash.log" 2>&1 &
crashing=$!
for _ in $(seq 1 600); do
  caught=$(awk '/^SigCgt:/ { print $2 }' "/proc/$crashing/status" 2>/dev/null)
  [ -n "$caught" ] && (( (16#$caught >> 10) & 1 )) && break  # bit 10: SIGSEGV (11)
  sleep 0.05
done
kill -SEGV "$crashing"
wait "$crashing"
crash_status=$?
check "a crash of nnremote ends it by the signal" [ "$crash_status" -eq $((128 + 11)) ]
check "a crash of nnremote writes a report with its stack" bash -c \
  "grep -Eq \"^nnremote: the command 'farm wait' \\(pid [0-9]+\\) crashed: SIGSEGV\" '$TEST_TMPDIR/crash.log' &&
   grep -q '^nnremote:   #00 pc 0x' '$TEST_TMPDIR/crash.log'"

# A directory of our own: $$ is not unique across sandboxes (PID namespaces), and TEST_TMPDIR
# is too long for a unix socket path.
socket_dir=$(mktemp -d /tmp/nnremote-cli-test.XXXXXX)
trap 'rm -rf "$socket_dir"' EXIT
socket=$socket_dir/emulator.sock
cat > "$TEST_TMPDIR/tiny.textproto" <<'NPU'
vendor: "acme" device_name: "tiny4" clock_mhz: 100
systolic_array { rows: 4 columns: 4 dataflow: WEIGHT_STATIONARY }
sram { ifmap_kib: 16 filter_kib: 16 ofmap_kib: 16 }
dram { bytes_per_cycle: 4 latency_cycles: 50 }
vector_unit { lanes: 4 }
NPU
$emulator --listen=unix:$socket --config=large128,$TEST_TMPDIR/tiny.textproto --pace=realtime > "$TEST_TMPDIR/emulator.log" 2>&1 &
server=$!
wait_for_server "$TEST_TMPDIR/emulator.log"
check "npu_emulator announces its address and devices" grep -q "listening on unix:$socket with nnremote-large128 acme-tiny4, paced in real time" "$TEST_TMPDIR/emulator.log"
check "devices lists the remote device" bash -c \
  "$nnremote devices --target=unix:$socket | grep -q 'feature level: FEATURE_LEVEL_7'"
check "an unknown device is named in the error" bash -c \
  "$nnremote run-sample --target=unix:$socket --device=acme-x 2>&1 | grep -q \"no device named 'acme-x'\""

# A socket this user may not connect to (mode 0000) is named with its owner and mode. Root,
# whose CAP_DAC_OVERRIDE passes any mode, runs the client without it.
psock=$socket_dir/private.sock
$emulator --listen=unix:$psock --config=edge16 > "$TEST_TMPDIR/private.log" 2>&1 &
private=$!
wait_for_server "$TEST_TMPDIR/private.log"
chmod 000 "$psock"
as_other=$nnremote
[ "$(id -u)" -eq 0 ] && as_other="setpriv --bounding-set=-dac_override,-dac_read_search $nnremote"
private_out=$($as_other devices --target=unix:$psock 2>&1)
check "a socket this user may not use is named with its owner, mode and --socket-group" bash -c \
  "grep -q 'cannot connect to $psock: Permission denied; it belongs to .* with mode 0[0-7]*: npu_emulator --socket-group=GROUP' <<<\"\$0\" || { echo \"\$0\"; false; }" "$private_out"
kill -TERM $private
wait $private 2>/dev/null

# A folder to write into that cannot be written is refused at startup, with the reason, not at
# the first write (the emulator served on, each dump or recording lost with a line on stderr).
readonly_dir=$TEST_TMPDIR/read-only
mkdir -p "$readonly_dir" && chmod 555 "$readonly_dir"
as_other_emulator=$emulator
[ "$(id -u)" -eq 0 ] && as_other_emulator="setpriv --bounding-set=-dac_override,-dac_read_search $emulator"
for flag in record dump-graphs; do
  check "npu_emulator --$flag into a read-only folder exits 2 with the reason" bash -c \
    "out=\$(timeout 60 $as_other_emulator --listen=unix:$socket_dir/ro.sock --$flag=$readonly_dir 2>&1); status=\$?
     [ \$status -eq 2 ] && grep -q -- '--$flag=$readonly_dir: cannot create a file there: Permission denied' <<<\"\$out\" ||
       { echo \"\$out (exit \$status)\"; false; }"
done
check "nnremote conform --cache-dir into a read-only folder is refused with the reason" bash -c \
  "$as_other conform --cases=tests/conformance/extensions --cache-dir=$readonly_dir/sub 2>&1 |
     grep -q -- '--cache-dir=$readonly_dir/sub: Permission denied'"

# --metrics on IPv6: Debian's civetweb has none, and says only "null context"; the emulator says
# what to give instead (or, with an IPv6 civetweb, serves).
metrics6=$(timeout 20 $emulator --listen=unix:$socket_dir/m6.sock --config=edge16 --metrics='[::1]:0' 2>&1)
metrics6_status=$?
check "--metrics on IPv6 is refused saying to give an IPv4 address, or served" bash -c \
  "{ [ $metrics6_status -eq 2 ] && grep -q 'may listen on IPv4 only: give an IPv4 address' <<<\"\$0\"; } ||
   { [ $metrics6_status -eq 124 ] && grep -q 'metrics at http://\[::1\]:' <<<\"\$0\"; } || { echo \"\$0\"; false; }" \
  "$metrics6"

# A device may answer without output shapes (the HAL allows it): run-sample says so rather than
# reading past the answer.
nsock=$socket_dir/noshapes.sock
$emulator --listen=unix:$nsock --config=edge16 --fault=no_shapes:0 > "$TEST_TMPDIR/noshapes.log" 2>&1 &
noshapes=$!
wait_for_server "$TEST_TMPDIR/noshapes.log"
check "run-sample prints a device's answer without output shapes as such" bash -c \
  "$nnremote run-sample --target=unix:$nsock 2>&1 | grep -q 'output shape 0: none reported (the model gives \[1, 4\])'"
kill -TERM $noshapes
wait $noshapes 2>/dev/null

conformance=$(dirname "$(readlink -f README.md)")/../shared/conformance
if [ -d "$conformance/V1_0" ]; then
  $nnremote conform --target=unix:$socket --cases="$conformance/V1_0" --junit="$TEST_TMPDIR/c.xml" \
    > "$TEST_TMPDIR/conform.log" 2>&1
  check "conform passes V1_0 through a standalone emulator" bash -c \
    "tail -1 '$TEST_TMPDIR/conform.log' | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ unsupported$'"
  check "conform writes JUnit XML" bash -c \
    "grep -q '<testsuite name=\"nnremote-conform\"' '$TEST_TMPDIR/c.xml' && grep -c '<testcase' '$TEST_TMPDIR/c.xml' | grep -q 378"
  $nnremote conform --target=unix:$socket --device=nnremote-large128 --cases="$conformance/V1_0" \
    --cache-dir="$TEST_TMPDIR/cache" > "$TEST_TMPDIR/conform-cache.log" 2>&1
  check "conform --cache-dir passes V1_0 prepared fresh and from cache" bash -c \
    "grep -q 'each prepared with a cache and again from it' '$TEST_TMPDIR/conform-cache.log' &&
     tail -1 '$TEST_TMPDIR/conform-cache.log' | grep -Eq '^378 passed, 0 failed, 0 unsupported$' &&
     [ -s '$TEST_TMPDIR/cache/model-0' ] && [ -s '$TEST_TMPDIR/cache/data-0' ]"
  # A server that dies for good ends the run (about a reconnection's wait, 10 s, after it died),
  # saying what ran, rather than cost each of the 9,374 models that wait.
  gsock=$socket_dir/gone.sock
  $emulator --listen=unix:$gsock --config=edge16 > "$TEST_TMPDIR/gone-server.log" 2>&1 &
  gone_server=$!
  wait_for_server "$TEST_TMPDIR/gone-server.log"
  $nnremote conform --target=unix:$gsock --cases="$conformance" > "$TEST_TMPDIR/gone.log" 2>&1 &
  gone_conform=$!
  for _ in $(seq 600); do grep -q '^Running conformance models' "$TEST_TMPDIR/gone.log" && break; sleep 0.1; done
  kill -9 $gone_server
  wait $gone_server 2>/dev/null
  for _ in $(seq 1200); do kill -0 $gone_conform 2>/dev/null || break; sleep 0.1; done
  kill $gone_conform 2>/dev/null  # still running after 2 minutes: the check below fails
  wait $gone_conform
  gone_status=$?
  check "conform stops when its server is gone for good, saying what ran" bash -c \
    "[ $gone_status -eq 1 ] && grep -q 'nnremote-edge16 is gone (.*): stopped after [0-9]* passed, [0-9]* failed' '$TEST_TMPDIR/gone.log'"
else
  echo "skip: $conformance is absent"
fi
check "conform --cache-dir refuses a device that does not cache" bash -c \
  "$nnremote conform --target=unix:$socket --device=acme-tiny4 --cases=tests/conformance/extensions \
     --cache-dir=$TEST_TMPDIR/nocache 2>&1 | grep -q 'acme-tiny4 does not cache compilations'"
check "devices lists extensions with their operand types" bash -c \
  "$nnremote devices --target=unix:$socket > $TEST_TMPDIR/devices.log &&
   grep -q 'com.example.fibonacci' $TEST_TMPDIR/devices.log &&
   grep -q 'operand type 1: tensor, 8 bytes per element' $TEST_TMPDIR/devices.log &&
   grep -q 'com.nnremote.transformer (operations only)' $TEST_TMPDIR/devices.log &&
   grep -q 'cache files:   1 model, 1 data' $TEST_TMPDIR/devices.log"
check "conform runs the vendor-extension models through the emulator" bash -c \
  "$nnremote conform --target=unix:$socket --device=nnremote-large128 --cases=tests/conformance/extensions 2>&1 |
     tail -1 | grep -q '^65 passed, 0 failed, 0 unsupported$'"
check "a device without extensions reports the extension models unsupported and refuses the invalid ones" bash -c \
  "$nnremote conform --target=unix:$socket --device=acme-tiny4 --cases=tests/conformance/extensions 2>&1 |
     tail -1 | grep -q '^17 passed, 0 failed, 48 unsupported$'"

state=$TEST_TMPDIR/state
$emulator --listen=unix:$socket_dir/state.sock --state-dir="$state" > "$TEST_TMPDIR/state.log" 2>&1 &
state_server=$!
wait_for_server "$TEST_TMPDIR/state.log"
kill $state_server; wait $state_server 2>/dev/null
check "npu_emulator --state-dir makes a private cache key on first start" bash -c \
  "[ \"\$(stat -c %a $state)\" = 700 ] && [ \"\$(stat -c %a $state/compilation-cache.key)\" = 600 ] &&
   [ \"\$(stat -c %s $state/compilation-cache.key)\" = 32 ]"
chmod 644 "$state/compilation-cache.key"
check "npu_emulator refuses a cache key others can read" bash -c \
  "$emulator --listen=unix:$socket_dir/state2.sock --state-dir=$state 2>&1 | grep -q 'can be read by others';
   [ \${PIPESTATUS[0]} -eq 2 ]"

# trace prices any conformance-format model on the NPU --config names.
cases_file=tests/conformance/extensions/fibonacci.json
simulated_ms() { sed -n 's/^simulated: \([0-9.]*\) ms$/\1/p'; }
edge=$($nnremote trace --cases=$cases_file --config=edge16 2>&1 | simulated_ms)
large=$($nnremote trace --cases=$cases_file --config=edge16,large128 --device=nnremote-large128 2>&1 | simulated_ms)
check "trace --cases prints the whole model's simulated time on the NPU --config and --device pick" bash -c \
  "[ -n '$edge' ] && [ -n '$large' ] && awk 'BEGIN { exit !($edge > 0 && $large > 0 && $edge != $large) }'"
check "trace --cases --model names a model of the file, and an unknown one is refused naming the models" bash -c \
  "$nnremote trace --cases=$cases_file --model=nope 2>&1 | grep -q \"has no model named 'nope' (models: \""
ssd_out=$($nnremote trace --model=mobilenet-ssd-quant8 --config=edgetpu --device=nnremote-edgetpu 2>&1)
check "trace on edgetpu shows the SSD's postprocessing on the host CPU, and its share of the time" bash -c \
  "grep -Eq '^[0-9]+ +DETECTION_POSTPROCESSING +host ' <<<'$ssd_out' &&
   grep -Eq '^of which host CPU: [0-9.]+ ms$' <<<'$ssd_out' && grep -Eq '^simulated: [0-9.]+ ms$' <<<'$ssd_out'"
check "trace refuses --config with --target" bash -c \
  "$nnremote trace --target=unix:$socket --config=edge16 2>&1 | grep -q -- '--config picks the NPUs'"
check "trace writes a Chrome trace and an HTML timeline" bash -c \
  "$nnremote trace --target=unix:$socket --model=sample --json=$TEST_TMPDIR/t.json --html=$TEST_TMPDIR/t.html | grep -q 'host simulation wall time' &&
   grep -q '\"traceEvents\"' $TEST_TMPDIR/t.json && grep -q '<svg' $TEST_TMPDIR/t.html"
check "trace and conform refuse an output they cannot write before their work, with the reason" bash -c \
  "out=\$($nnremote trace --target=unix:$socket --model=sample --json=$TEST_TMPDIR/missing/t.json 2>&1);
   grep -q -- '--json: cannot write $TEST_TMPDIR/missing/t.json: No such file or directory' <<<\"\$out\" &&
   ! grep -q '^total:' <<<\"\$out\" &&
   out=\$($nnremote conform --target=unix:$socket --cases=tests/conformance/extensions --junit=$TEST_TMPDIR 2>&1);
   grep -q -- '--junit: cannot write $TEST_TMPDIR: Is a directory' <<<\"\$out\" &&
   ! grep -q '^Running conformance models' <<<\"\$out\""
check "graph names what it cannot read, and why" bash -c \
  "$nnremote graph --cases=$TEST_TMPDIR/none.json 2>&1 | grep -q 'cannot read $TEST_TMPDIR/none.json: No such file or directory'"

# QoS from the command line: load summaries, statuses by name, and bad flags.
load_out=$($nnremote load --target=unix:$socket --device=nnremote-large128 --model=sample --clients=2 \
  --priority=high --seconds=1 2>&1)
check "load ends with one summary line for its priority class" bash -c \
  "tail -1 <<<'$load_out' | grep -Eq '^priority=high clients=2 executions=[1-9][0-9]* errors=0 p50_us=[0-9]+ p99_us=[0-9]+ throughput_per_s=[1-9][0-9]* reconnects=0$'"
load_out=$($nnremote load --target=unix:$socket --model=sample --clients=1 --seconds=1 --deadline-us=1 2>&1)
check "load counts every failure by status name above the summary" bash -c \
  "grep -Eq '^errors: MISSED_DEADLINE_PERSISTENT=[1-9]' <<<'$load_out' && tail -1 <<<'$load_out' | grep -q '^priority=medium clients=1'"
check "two loads at once each report their own line" bash -c \
  "($nnremote load --target=unix:$socket --model=sample --priority=low --seconds=1 > $TEST_TMPDIR/l1.log 2>&1 &
    $nnremote load --target=unix:$socket --model=sample --priority=high --seconds=1 > $TEST_TMPDIR/l2.log 2>&1; wait) &&
   tail -1 $TEST_TMPDIR/l1.log | grep -q '^priority=low clients=1' && tail -1 $TEST_TMPDIR/l2.log | grep -q '^priority=high clients=1'"
check "run-sample prints a missed deadline by its status name" bash -c \
  "$nnremote run-sample --target=unix:$socket --device=nnremote-large128 --deadline-us=1 --priority=high 2>&1 | grep -q 'MISSED_DEADLINE_PERSISTENT'; [ \${PIPESTATUS[0]} -ne 0 ]"
check "an unknown priority and a negative deadline are refused clearly, with exit code 2" bash -c \
  "$nnremote run-sample --priority=urgent 2>&1 | grep -q \"Illegal value 'urgent' specified for flag 'priority'; must be low, medium or high\" &&
   $nnremote load --deadline-us=-5 2>&1 | grep -q \"Illegal value '-5' specified for flag 'deadline-us'; must be a whole number from 1\" &&
   { $nnremote load --clients=many >/dev/null 2>&1; [ \$? -eq 2 ]; }"
check "a command refuses another command's flags, naming the flag" bash -c \
  "$nnremote cost --target=unix:$socket 2>&1 | grep -q -- '--target is not a flag of this command';
   [ \${PIPESTATUS[0]} -eq 2 ]"
check "--helpfull lists every flag with its type's default" bash -c \
  "$nnremote --helpfull | grep -q -- '--clients (load: clients, each with a session of its own); default: 1;' &&
   $emulator --helpfull | grep -q -- '--pace (none or realtime); default: none;'"
printf -- '# the farm emulator, and the device this shard tests\n--target=unix:%s\n--device=acme-tiny4\n' "$socket" \
  > "$TEST_TMPDIR/client.flags"
check "nnremote reads its flags from --flagfile" bash -c \
  "out=\$($nnremote run-sample --flagfile=$TEST_TMPDIR/client.flags 2>&1) &&
   grep -q '^acme-tiny4:\$' <<<\"\$out\" && ! grep -q '^nnremote-large128:\$' <<<\"\$out\""
# --backend is repeatable, also across a flag file, and keeps the commas of its ARG.
printf -- '--listen=unix:%s\n--backend=drivers/sim/sim_backend.so:edge16,scalesim32\n' "$socket_dir/flagfile.sock" \
  > "$TEST_TMPDIR/emulator.flags"
timeout 60 $emulator --flagfile="$TEST_TMPDIR/emulator.flags" --backend=drivers/sim/sim_backend.so:large128 \
  > "$TEST_TMPDIR/flagfile-emulator.log" 2>&1 &
flagfile_server=$!
wait_for_server "$TEST_TMPDIR/flagfile-emulator.log"
kill $flagfile_server 2>/dev/null; wait $flagfile_server 2>/dev/null
check "npu_emulator reads --flagfile, and every --backend counts" grep -q \
  "listening on unix:$socket_dir/flagfile.sock with nnremote-edge16 nnremote-scalesim32 nnremote-large128" \
  "$TEST_TMPDIR/flagfile-emulator.log"
printf 'session_quotas { prepared_models: 0 }\n' > "$TEST_TMPDIR/zero.textproto"
check "a quota of 0 is refused at startup, naming the field" bash -c \
  "$emulator --server-config=$TEST_TMPDIR/zero.textproto 2>&1 | grep -q 'session_quotas.prepared_models = 0'"

cat > "$TEST_TMPDIR/scale.cfg" <<'CFG'
[general]
run_name = alexnet

[architecture_presets]
ArrayHeight:    32
ArrayWidth:     32
IfmapSramSzkB:   64
FilterSramSzkB:  64
OfmapSramSzkB:   64
Bandwidth : 10
Dataflow : ws

[run_presets]
InterfaceBandwidth: CALC
CFG
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nConv1, 224, 224, 11, 11, 3, 96, 4,\n' > "$TEST_TMPDIR/alexnet.csv"
check "cost reproduces SCALE-Sim's AlexNet conv1 golden" bash -c \
  "$nnremote cost --scalesim-config=$TEST_TMPDIR/scale.cfg --topology=$TEST_TMPDIR/alexnet.csv | grep -q '^0, 112283, 0, '"

# A farm emulator on TCP: mutual TLS and tokens (certificates made here, nothing committed).
pki=$socket_dir/pki
mkdir -p "$pki"
newkey="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
openssl req -x509 $newkey -days 2 -subj /CN=cli-ca -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
for name in localhost ci-runner; do
  openssl req $newkey -subj /CN=$name -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
  echo "subjectAltName=DNS:localhost,IP:127.0.0.1" > "$pki/$name.ext"
  openssl x509 -req -days 2 -in "$pki/$name.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial \
    -extfile "$pki/$name.ext" -out "$pki/$name.pem" 2>/dev/null
done
printf '# identity token\nci-runner cli-token-0123456789abcdef\n' > "$pki/tokens"
printf 'cli-token-0123456789abcdef\n' > "$pki/token"
check "plain TCP without --insecure is refused at startup" bash -c \
  "$emulator --listen=127.0.0.1:0 2>&1 | grep -q -- 'accept the risk with --insecure'"
check "the server names the flag of a file it cannot read, and why" bash -c \
  "$emulator --listen=127.0.0.1:0 --tls-cert=$pki/nope.pem --tls-key=$pki/localhost.key 2>&1 |
     grep -q -- '--tls-cert: cannot read $pki/nope.pem: No such file or directory' &&
   $emulator --listen=127.0.0.1:0 --tls-cert=$pki/localhost.pem --tls-key=$pki/localhost.key --tokens=$pki 2>&1 |
     grep -q -- '--tokens: cannot read $pki: Is a directory'"
$emulator --listen=127.0.0.1:0 --tls-cert="$pki/localhost.pem" --tls-key="$pki/localhost.key" \
  --client-ca="$pki/ca.pem" --tokens="$pki/tokens" > "$TEST_TMPDIR/secure.log" 2>&1 &
secure=$!
wait_for_server "$TEST_TMPDIR/secure.log"
address=$(sed -n 's/^npu_emulator listening on \([^ ]*\) with.*/\1/p' "$TEST_TMPDIR/secure.log")
tls="--tls-ca=$pki/ca.pem --tls-cert=$pki/ci-runner.pem --tls-key=$pki/ci-runner.key"
check "run-sample works over mutual TLS with a token" bash -c \
  "$nnremote run-sample --target=$address $tls --token-file=$pki/token --device=nnremote-edge16 | grep -q 'output shape 0: \[1, 4\]'"
check "without the token every call is UNAUTHENTICATED" bash -c \
  "$nnremote devices --target=$address $tls 2>&1 | grep -q 'requires a bearer token'"
check "a missing certificate file is named" bash -c \
  "$nnremote devices --target=$address --tls-ca=$pki/nope.pem 2>&1 | grep -q -- '--tls-ca: cannot read $pki/nope.pem'"
kill -TERM $secure
wait $secure

# Recovery: a server killed with SIGKILL during a load and restarted a second later. The
# client's one execution in flight may fail; the run completes in a new session.
rsock=$socket_dir/recover.sock
$emulator --listen=unix:$rsock --config=edge16 > "$TEST_TMPDIR/first.log" 2>&1 &
first=$!
wait_for_server "$TEST_TMPDIR/first.log"
$nnremote load --target=unix:$rsock --model=sample --clients=1 --seconds=4 > "$TEST_TMPDIR/recover.log" 2>&1 &
loader=$!
sleep 1
kill -KILL $first
wait $first 2>/dev/null
sleep 1
$emulator --listen=unix:$rsock --config=edge16 > "$TEST_TMPDIR/second.log" 2>&1 &
second=$!
wait $loader
check "a load survives its server's SIGKILL and restart: reconnects=1, at most 1 error, results unchanged" bash -c \
  "tail -1 '$TEST_TMPDIR/recover.log' | grep -Eq '^priority=medium clients=1 executions=[1-9][0-9]* errors=[01] .* reconnects=1$' &&
   ! grep -q WRONG_RESULT '$TEST_TMPDIR/recover.log'"
check "with --no-reconnect the same loss ends the client at once" bash -c \
  "$nnremote load --target=unix:$rsock --model=sample --seconds=3 --no-reconnect > '$TEST_TMPDIR/noreconnect.log' 2>&1 &
   load=\$!; sleep 1; kill -KILL $second; wait \$load;
   tail -1 '$TEST_TMPDIR/noreconnect.log' | grep -Eq 'errors=1 .* reconnects=0$' && grep -q 'DEAD_OBJECT=1' '$TEST_TMPDIR/noreconnect.log'"
wait $second 2>/dev/null

kill -TERM $server
wait $server
check "npu_emulator exits cleanly on SIGTERM" grep -q "shutting down" "$TEST_TMPDIR/emulator.log"
check "a gone server is reported as DEAD_OBJECT" bash -c \
  "$nnremote devices --target=unix:$socket 2>&1 | grep -q DEAD_OBJECT"

# Addresses gRPC would read loosely (port 99999 as 34463, no port as 443) are refused by name.
check "npu_emulator refuses a --listen port past 65535 as a usage error" bash -c \
  "out=\$($emulator --listen=127.0.0.1:99999 --insecure 2>&1); [ \$? -eq 2 ] &&
   grep -q \"Illegal value '127.0.0.1:99999' specified for flag 'listen'; it has no usable port: '99999' is not a number from 0 to 65535\" <<<\"\$out\""
check "npu_emulator refuses a unix --metrics address" bash -c \
  "$emulator --metrics=unix:/tmp/m.sock 2>&1 | grep -q \"flag 'metrics'; it is not HOST:PORT\""
check "a --target without a port is INVALID_ARGUMENT at once" bash -c \
  "timeout 20 $nnremote devices --target=localhost 2>&1 | grep -q \"INVALID_ARGUMENT: 'localhost' has no port (HOST:PORT)\""

# Farm inputs that need no etcd to be refused (tests/farm has the rest against a real cluster).
check "a malformed etcd:// target is INVALID_ARGUMENT naming what is wrong" bash -c \
  "$nnremote devices --target='etcd://127.0.0.1/lab' 2>&1 | grep -q \"INVALID_ARGUMENT: malformed pool target 'etcd://127.0.0.1/lab': endpoint '127.0.0.1' has no port (HOST:PORT)\""
check "an etcd:// target with an unknown parameter is refused" bash -c \
  "$nnremote devices --target='etcd://127.0.0.1:2379/lab?colour=red' 2>&1 | grep -q \"unknown or empty parameter 'colour=red'\""
check "an unreachable etcd fails the command naming it, within its call timeout" bash -c \
  "timeout 30 $nnremote devices --target='etcd://127.0.0.1:1/lab' --wait=100ms 2>&1 |
   grep -q 'etcd Range at 127.0.0.1:1: no member answered within [0-9]* ms (is etcd running and reachable there?'"
# One unanswered etcd call takes 5 s: a wait of 8 s asks twice before it fails (once took 5 s).
wait_started=$(date +%s)
farm_wait_out=$(timeout 60 $nnremote farm wait --etcd=127.0.0.1:1 --pool=lab --devices=1 --wait=8s 2>&1)
farm_wait_status=$? farm_wait_took=$(( $(date +%s) - wait_started ))
check "farm wait asks an etcd that does not answer again until its --wait is over, then names it" bash -c \
  "[ $farm_wait_status -eq 1 ] && [ $farm_wait_took -ge 8 ] && grep -q 'etcd Range at 127.0.0.1:1' <<<\"\$0\"" "$farm_wait_out"
check "a negative --wait is refused" bash -c \
  "$nnremote devices --target='etcd://127.0.0.1:2379/lab' --wait=-1s 2>&1 | grep -q -- '--wait must not be negative'"
check "farm list needs --etcd" bash -c "$nnremote farm list 2>&1 | grep -q -- '--etcd=HOST:PORT\\[,HOST:PORT...\\] is required'"
check "a farm command takes only its own flags" bash -c \
  "$nnremote farm wait --etcd=127.0.0.1:1 --cases=x >/dev/null 2>&1; [ \$? -eq 2 ]"
check "a shard that does not exist is refused" bash -c \
  "$nnremote conform --cases=tests/conformance/extensions --shard=8/8 2>&1 | grep -q 'expected I/N with N from 1'"
check "npu_emulator refuses a bad --etcd endpoint and a bad TTL" bash -c \
  "$emulator --listen=unix:/tmp/nnremote-cli-etcd-\$\$.sock --etcd=nohost 2>&1 | grep -q \"etcd endpoint 'nohost' has no port (HOST:PORT)\" &&
   $emulator --etcd-ttl=1 2>&1 | grep -q \"flag 'etcd-ttl'; must be a whole number from 2 to 60\""

echo "$failures failed checks"
[ $failures -eq 0 ]
