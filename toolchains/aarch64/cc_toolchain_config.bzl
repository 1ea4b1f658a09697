"""A C++ toolchain for Debian's aarch64 cross compiler (g++-aarch64-linux-gnu), for
`bazel build --config=arm64` (scripts/build_arm64.sh, docs/build.md); or, with compiler =
"clang", clang-14 targeting aarch64 over the same cross binutils, libraries and libstdc++
(`--config=arm64_clang`). Headers and libraries of the target come from Debian's arm64 multiarch
packages (/usr/include/aarch64-linux-gnu, /usr/lib/aarch64-linux-gnu), which both compilers and
the linker search by themselves (clang finds the gcc-cross installation)."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl", "feature", "flag_group", "flag_set", "tool_path")

_PREFIX = "/usr/bin/aarch64-linux-gnu-"

_ALL_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

_ALL_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

def _impl(ctx):
    clang = ctx.attr.compiler == "clang"

    # Bazel compiles and links with its "gcc" tool; the rest are the cross binutils either way.
    tools = [tool_path(name = "gcc", path = "/usr/bin/clang-14" if clang else _PREFIX + "gcc")] + [
        tool_path(name = name, path = _PREFIX + tool)
        for name, tool in [
            ("ld", "ld"),
            ("ar", "ar"),
            ("cpp", "cpp"),
            ("gcov", "gcov"),
            ("nm", "nm"),
            ("objdump", "objdump"),
            ("strip", "strip"),
        ]
    ]
    target = ["--target=aarch64-linux-gnu"] if clang else []
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [flag_set(
                actions = _ALL_COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = target + [
                    "-fstack-protector",
                    "-Wall",
                    # As Bazel's host toolchain: gcc 12 reports false positives in libstdc++.
                    "-Wno-free-nonheap-object",
                    "-fno-omit-frame-pointer",
                    "-U_FORTIFY_SOURCE",
                ])],
            )],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [flag_set(
                actions = _ALL_LINK_ACTIONS,
                flag_groups = [flag_group(flags = target + ["-lstdc++", "-lm", "-pthread"])],
            )],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "aarch64-linux-gnu-" + ctx.attr.compiler,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = "aarch64-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = ctx.attr.compiler,
        abi_version = "aarch64",
        abi_libc_version = "glibc",
        tool_paths = tools,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/aarch64-linux-gnu/12/include",
            "/usr/aarch64-linux-gnu/include",
            "/usr/include/aarch64-linux-gnu",
            "/usr/include",
        ] + (["/usr/lib/llvm-14/lib/clang", "/usr/local/include"] if clang else []),
    )

cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {"compiler": attr.string(default = "gcc", values = ["gcc", "clang"])},
    provides = [CcToolchainConfigInfo],
)
