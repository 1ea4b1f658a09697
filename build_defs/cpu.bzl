"""Per-CPU compiler flags: nothing x86-only reaches an aarch64 build (docs/build.md)."""

# The baseline instruction set of the libraries that hold hot loops (the simulator's kernels and
# timing, hal). x86-64-v2 (SSE4.2, POPCNT) runs on every x86-64 host of the last decade; the
# kernels add AVX2 clones picked at load time (drivers/sim/kernels/kernel_utils.h).
CPU_COPTS = select({
    "//build_defs:x86_64": ["-march=x86-64-v2"],
    "//build_defs:aarch64": ["-march=armv8-a"],
    "//conditions:default": [],
})
