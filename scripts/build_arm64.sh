#!/usr/bin/env bash
# Cross-builds npu_emulator and the simulator's backend library for aarch64 with Debian's cross
# toolchain and arm64 multiarch libraries, runs the simulator's unit tests under qemu-user, and
# serves the V1_0 conformance models from the arm64 emulator (under qemu) to this host's
# nnremote. What it cannot do, and why, is in docs/build.md ("arm64").
#   scripts/build_arm64.sh            # everything
#   scripts/build_arm64.sh --no-smoke # build and unit tests only
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo

scripts/setup.sh
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
  $sudo apt-get update -q
fi
# Not libxnnpack-dev:arm64: it is not multi-arch co-installable and would remove the amd64 one.
$sudo apt-get install -y -q --no-install-recommends g++-aarch64-linux-gnu qemu-user-static \
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 \
  libssl-dev:arm64

echo "== cross-building for aarch64 =="
bazel build --config=arm64 //emulator:npu_emulator //accelerator_sim:sim_backend.so
arm_bin=$(bazel info --config=arm64 bazel-bin 2>/dev/null)
file "$arm_bin/emulator/npu_emulator" "$arm_bin/accelerator_sim/sim_backend.so"

echo "== the simulator's unit tests under qemu-aarch64 =="
# xnnpack_ops_test checks XNNPACK itself, which arm64 builds go without.
bazel test --config=arm64 --run_under=/usr/bin/qemu-aarch64-static --test_output=errors -- \
  //tests/accelerator_sim/... -//tests/accelerator_sim:xnnpack_ops_test

[ "${1:-}" = "--no-smoke" ] && exit 0
echo "== the arm64 npu_emulator under qemu, serving this host's nnremote =="
bazel build //tools:nnremote
host_bin=$(bazel info bazel-bin 2>/dev/null)
socket_dir=$(mktemp -d /tmp/nnremote-arm64.XXXXXX)
( cd "$arm_bin/emulator" && exec qemu-aarch64-static ./npu_emulator --listen=unix:$socket_dir/arm64.sock --config=edge16 ) &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$socket_dir"' EXIT
for _ in $(seq 1 300); do [ -S "$socket_dir/arm64.sock" ] && break; sleep 0.1; done
"$host_bin/tools/nnremote" run-sample --target=unix:$socket_dir/arm64.sock
if [ -d ../shared/conformance/V1_0 ]; then
  "$host_bin/tools/nnremote" conform --target=unix:$socket_dir/arm64.sock --cases=../shared/conformance/V1_0 | tail -1
fi
