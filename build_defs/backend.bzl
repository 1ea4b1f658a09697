"""nnremote_backend: a backend library for npu_emulator --backend (hal/backend_abi.h)."""

def nnremote_backend(name, srcs, deps = [], linkopts = [], **kwargs):
    """A shared object NAME (e.g. "sim_backend.so") that exports only the backend entry points.

    Everything it links stays private to it: the version script hides every symbol but the entry
    points, so its copy of hal/ never interposes on the server's. One thing cannot be private:
    generated protobuf code registers its .proto file in the one shared libprotobuf, and a second
    registration of the same file aborts the process. So a backend must not link a .proto that
    the server links too (npu_emulator links none of the simulator's; docs/backends.md).
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        linkshared = 1,
        deps = deps + [
            "//hal:backend_abi",
            "//hal:backend_exports.lds",
        ],
        linkopts = linkopts + [
            "-Wl,--version-script=$(location //hal:backend_exports.lds)",
            "-Wl,--exclude-libs,ALL",
        ] + select({
            # Every symbol resolved at link time, except under clang's ASan: its runtime is linked
            # statically into the executable, which provides it to the shared objects it loads.
            "//build_defs:asan": [],
            "//conditions:default": ["-Wl,-z,defs"],
        }),
        **kwargs
    )
