#!/usr/bin/env bash
# Installs what nnremote needs from Debian 12's packages, if anything is missing. Idempotent.
# --with-browser also installs Chromium, which the tests use to render the HTML trace timeline.
set -euo pipefail

packages=(
  # Build: Debian's Bazel (WORKSPACE mode, offline) and the repositories it wants locally.
  bazel-bootstrap bazel-platforms bazel-rules-java bazel-rules-proto bazel-skylib
  g++ pkg-config
  # Test certificates for TLS and mutual TLS (the tests make their own).
  openssl
  # The sanitizer build and the fuzz targets: clang with libFuzzer, linked by lld (--config=asan
  # and fuzz, docs/fuzzing.md).
  clang-14 libfuzzer-14-dev lld-14
  # Libraries, linked from the system.
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # OpenSSL's libcrypto: the HMAC that seals compilation caches (hal:compilation_cache).
  libssl-dev
  # XNNPACK, which //benchmarks:xnnpack_comparison_benchmark compares the simulator with.
  libxnnpack-dev libpthreadpool-dev
  # Arm NN and its reference CPU backend: //drivers/armnn:armnn_backend.so (docs/backends.md).
  libarmnn-dev libarmnn-cpuref-backend22
  # Farms (docs/farm.md): etcd, which the farm tests and scripts/farm_demo.sh start as a real
  # 3-member cluster on loopback.
  etcd-server
  # npu_emulator --metrics is served with prometheus-cpp; the tests check it with Prometheus' own
  # promtool (package prometheus).
  prometheus-cpp-dev prometheus
)

if [ "${1:-}" = "--with-browser" ]; then packages+=(chromium); fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
