#!/usr/bin/env bash
# The main job: build, start npu_emulator on the default simulated NPUs, and drive a sample model
# through the proxy driver (device list, outputs, output shapes, timing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bazel build //emulator:npu_emulator //tools:nnremote

socket=/tmp/nnremote-sample-$$.sock
bazel-bin/emulator/npu_emulator --listen="unix:$socket" &
emulator=$!
trap 'kill "$emulator" 2>/dev/null; wait "$emulator" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done

bazel-bin/tools/nnremote run-sample --target="unix:$socket"
