#!/usr/bin/env bash
# Cross-builds npu_emulator (which is also the backend host), the simulator's backend library,
# nnremote and libneuralnetworks.so (in CI, see below) for aarch64 with Debian's cross toolchain and arm64
# multiarch libraries, runs the simulator's unit tests under qemu-user, and serves from the arm64 emulator (under qemu) to this host's
# nnremote: the simulator in process and sim_backend.so isolated in an arm64 backend host, which
# is crashed once to show it restart. What it cannot do, and why, is in docs/build.md ("arm64").
#   scripts/build_arm64.sh            # everything
#   scripts/build_arm64.sh --no-smoke # build and unit tests only
#   scripts/build_arm64.sh --ci       # build (unoptimized) and the isolated-backend smoke only
#                                     # (.ci/run): ends with "arm64: N passed, N failed"
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo

passed=0 failed=0
check() {  # check NAME COMMAND...: runs COMMAND and counts it
  local name=$1; shift
  if "$@"; then echo "arm64: $name ok"; passed=$((passed + 1))
  else echo "arm64: $name FAILED"; failed=$((failed + 1)); fi
}
finish() {
  echo "arm64: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

# The cross toolchain, qemu-user and the arm64 multiarch libraries (docs/build.md, "arm64").
scripts/setup.sh --with-arm64 || exit 1

# The smoke run drives the arm64 server with this host's nnremote. NNREMOTE_BAZEL_FLAGS
# (run_tests.sh): the host build that run already made, reused. Built before the cross-build:
# after it, in CI's all-ASan run, it took 282 s (186 actions) although the tests had just built
# it (likely because --config=asan sets CC for Bazel's C++ toolchain and the cross-build does
# not); in the gcc run it took 0.6 s either way.
if [ "$mode" != --no-smoke ]; then
  # shellcheck disable=SC2086
  bazel build ${NNREMOTE_BAZEL_FLAGS:-} //tools:nnremote || { check "host nnremote build" false; finish; }
  nnremote="$(bazel info ${NNREMOTE_BAZEL_FLAGS:-} bazel-bin 2>/dev/null)/tools/nnremote"
fi

# CI builds unoptimized: the check is that every file compiles and links for aarch64 and runs,
# and -O0 takes about half of -O2's compile time. Where the host tests ran a gcc build (CI with
# the conformance data), CI cross-compiles with clang-14 (--config=arm64_clang): gcc's and
# clang's warnings are both checked by then, and clang's front end takes about 55% of g++'s time
# on our files. Where they ran under ASan alone (clang, no conformance data), this is CI's gcc
# build, and it cross-builds nnremote and the NNAPI library too, which a dev board wants as
# well; elsewhere the host's gcc build has compiled them, and they would add 30% to this build
# (tools/ and runtime/) and check nothing new.
config=--config=arm64
optimize=()
targets=(//emulator:npu_emulator //drivers/sim:sim_backend.so //tools:nnremote //runtime:libneuralnetworks.so)
if [ "$mode" = --ci ]; then
  optimize=(--copt=-O0)
  if [[ "${NNREMOTE_BAZEL_FLAGS:-}" != *--config=asan* ]]; then
    config=--config=arm64_clang
    targets=("${targets[@]:0:2}")
  fi
fi
echo "== cross-building for aarch64 ($config) =="
arm_bin=$(bazel info $config bazel-bin 2>/dev/null)
built() {
  bazel build $config "${optimize[@]}" "${targets[@]}" || return 1
  local outputs=() target kinds
  for target in "${targets[@]}"; do outputs+=("${target#//}"); done
  outputs=("${outputs[@]/://}")
  kinds=$(cd "$arm_bin" && file -b "${outputs[@]}")
  echo "$kinds"
  [ "$(grep -c "ARM aarch64" <<< "$kinds")" = ${#outputs[@]} ]
}
check "cross-build (${config#--config=}) of ${targets[*]#//*:}" built
[ "$failed" -eq 0 ] || finish

if [ "$mode" != --ci ]; then
  echo "== the simulator's unit tests under qemu-aarch64 =="
  # xnnpack_ops_test checks XNNPACK itself, which arm64 builds go without.
  check "simulator unit tests under qemu" bazel test --config=arm64 --run_under=/usr/bin/qemu-aarch64-static \
    --test_output=errors -- //tests/drivers/sim/... -//tests/drivers/sim:xnnpack_ops_test
  [ "$mode" = --no-smoke ] && finish
fi

# The backend host is npu_emulator starting itself (/proc/self/exe) as a child, so the kernel
# itself must know to run aarch64 binaries with qemu: binfmt_misc, registered from the
# qemu-user-static package's own entry when it is not already.
binfmt=/proc/sys/fs/binfmt_misc
registered() {
  [ -f $binfmt/qemu-aarch64 ] && grep -qx enabled $binfmt/qemu-aarch64 && return 0
  [ -f $binfmt/register ] || $sudo mount -t binfmt_misc binfmt_misc $binfmt || return 1
  [ -f $binfmt/qemu-aarch64 ] || $sudo sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf > $binfmt/register" || return 1
  grep -qx enabled $binfmt/qemu-aarch64
}
check "binfmt_misc runs aarch64 binaries through qemu" registered
[ "$failed" -eq 0 ] || finish

echo "== the arm64 npu_emulator under qemu, with an isolated arm64 backend host, serving this host's nnremote =="
socket_dir=$(mktemp -d /tmp/nnremote-arm64.XXXXXX)
target=unix:$socket_dir/arm64.sock
# Generous health checks: under qemu every instruction is emulated.
cat > "$socket_dir/server.textproto" <<EOF
backend_isolation { health_check_interval_ms: 1000 health_check_timeout_ms: 10000 }
EOF
# Its stderr is also kept, for the crash report below.
"$arm_bin/emulator/npu_emulator" --listen="$target" --config=large128 \
  --backend="$arm_bin/drivers/sim/sim_backend.so:edge16" --server-config="$socket_dir/server.textproto" \
  2> >(tee "$socket_dir/server.log" >&2) &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$socket_dir"' EXIT

# Waits (at most 120 s, qemu being slow) until `nnremote devices` prints a line matching $1.
devices_show() {
  for _ in $(seq 1 240); do
    "$nnremote" devices --target="$target" > "$socket_dir/devices.txt" 2>&1 && grep -qE "$1" "$socket_dir/devices.txt" && return 0
    kill -0 $server 2>/dev/null || return 1
    sleep 0.5
  done
  cat "$socket_dir/devices.txt"; return 1
}
# The report of the child killed by SIGSEGV: its first line, then its stack from the instruction
# the signal interrupted (so neither the crash handler nor the report itself shows), each frame a
# file and an address there, some named from the files' symbols.
crash_reported() {
  local report
  report=$(sed -n "/(pid $1) crashed: SIGSEGV.*its stack:/,/killed by SIGSEGV/p" "$socket_dir/server.log")
  if [ "$(grep -cE '^npu_emulator:   #[0-9]{2} pc 0x[0-9a-f]{16}  [^ ]+' <<<"$report")" -ge 2 ] &&
     grep -qE '^npu_emulator:   #[0-9]{2} pc .*\)$' <<<"$report" &&
     ! grep -qE 'onCrashSignal|writeCrashReport' <<<"$report"; then
    return 0
  fi
  echo "$report"
  return 1
}
check "isolated arm64 backend host is running" devices_show "backend host: +running \(pid [0-9]+\), 0 restarts"
cat "$socket_dir/devices.txt"
check "run-sample on every device" "$nnremote" run-sample --target="$target"
child=$(sed -nE 's/.*backend host: +running \(pid ([0-9]+)\).*/\1/p' "$socket_dir/devices.txt" | head -1)
if [ -n "$child" ]; then
  kill -SEGV "$child"
  check "the crashed backend host is restarted and says why" devices_show "running \(pid [0-9]+\), 1 restarts; last killed by SIGSEGV"
  check "the crashed backend host wrote its crash report" crash_reported "$child"
  check "run-sample after the restart" "$nnremote" run-sample --target="$target"
else
  check "the backend host's pid is shown" false
fi
if [ "$mode" != --ci ] && [ -d ../shared/conformance/V1_0 ]; then
  "$nnremote" conform --target="$target" --cases=../shared/conformance/V1_0 | tail -1
fi
finish
