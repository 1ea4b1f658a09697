#!/usr/bin/env bash
# Installs what nnremote needs from Debian 12's packages, if anything is missing. Idempotent.
# --with-browser also installs Chromium, which the tests use to render the HTML trace timeline.
# --with-arm64 also adds the arm64 architecture and what scripts/build_arm64.sh needs: the cross
# toolchain, qemu-user and arm64 multiarch libraries. One apt transaction for all of it, so a new
# machine runs apt-get once, and the amd64 libraries are installed at the versions their arm64
# twins need (installed later, those upgraded the amd64 ones already installed).
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

arm64_packages=(g++-aarch64-linux-gnu qemu-user-static
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  libssl-dev:arm64
  # Only the runtime libraries of prometheus-cpp: prometheus-cpp-dev:arm64 is not co-installable
  # with the amd64 one, whose headers serve both (third_party/system/BUILD).
  libprometheus-cpp-core1.0:arm64 libprometheus-cpp-pull1.0:arm64)
# Not libxnnpack-dev:arm64: it is not multi-arch co-installable and would remove the amd64 one.

arm64=false
for option in "$@"; do
  case "$option" in
    --with-browser) packages+=(chromium) ;;
    --with-arm64) packages+=("${arm64_packages[@]}"); arm64=true ;;
    *) echo "usage: scripts/setup.sh [--with-browser] [--with-arm64]" >&2; exit 2 ;;
  esac
done

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
if $arm64 && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
