"""Protobuf/gRPC C++ code generation with Debian's protoc and grpc_cpp_plugin.

Native cc_proto_library needs @com_google_protobuf, which cannot be fetched offline, so we run
the system protoc in a genrule and wrap its outputs in a cc_library.
"""

def system_cc_proto_library(name, src, grpc = False, deps = [], visibility = None):
    """Generates C++ (and optionally gRPC) code for one .proto file in this package."""
    base = src[:-len(".proto")]
    outs = [base + ".pb.h", base + ".pb.cc"]
    plugin = ""
    if grpc:
        outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]
        plugin = " --grpc_out=$(GENDIR) --plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin)"
    native.genrule(
        name = name + "_codegen",
        srcs = [src],
        outs = outs,
        cmd = "protoc --proto_path=. --cpp_out=$(GENDIR)" + plugin + " $(location " + src + ")",
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["//third_party/system:protobuf"] + (["//third_party/system:grpc"] if grpc else []),
        visibility = visibility,
    )
