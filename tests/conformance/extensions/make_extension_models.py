#!/usr/bin/env python3
"""Writes the vendor-extension conformance models in this folder (../shared/conformance's format,
its README's "Vendor extensions" section). The goldens are computed here, independently of the
simulator: the Fibonacci numbers as AOSP's example driver defines them, and GELU(x W^T + b) in
double precision. Run it from this folder after changing it; the JSON files are committed.
"""
import base64
import json
import math
import struct

FIB = "com.example.fibonacci"
EXAMPLE_INT64, EXAMPLE_TENSOR_QUANT64_ASYMM = 0, 1
EXAMPLE_FIBONACCI = 0
TRANSFORMER = "com.nnremote.transformer"
NNREMOTE_FULLY_CONNECTED_GELU = 0


def b64(data):
    return base64.b64encode(data).decode("ascii")


def operand(type_, dims, lifetime, data=b"", consumers=0, params=None, ignored=False):
    o = {"type": type_, "dimensions": dims, "number_of_consumers": consumers, "scale": 0.0,
         "zero_point": 0, "lifetime": lifetime, "is_ignored": ignored, "data": b64(data)}
    if params is not None:
        o["extension_params"] = b64(params)
    return o


def model(name, operands, operations, inputs, outputs, extensions, expect_failure=False):
    return {"name": name,
            "main": {"operands": operands, "operations": operations,
                     "input_indexes": inputs, "output_indexes": outputs},
            "referenced": [], "is_relaxed": False, "expect_failure": expect_failure,
            "min_supported_version": "V1_2", "expected_multinomial_distribution_tolerance": 0,
            "extension_name_to_prefix": [{"name": n, "prefix": p} for n, p in extensions]}


def code(prefix, within):
    return (prefix << 16) | within


def fibonacci(n):
    values = [1, 1][:n]
    while len(values) < n:
        values.append(values[-1] + values[-2])
    return values


def quant64_params(scale, zero_point):
    return struct.pack("<dq", scale, zero_point)


def fib_model(name, prefix, n, input_kind, output_kind, scale=0.5, zero_point=10, expect_failure=False,
              n_data=None, output_params=None, extra=None):
    """One EXAMPLE_FIBONACCI with the given input and output types."""
    if input_kind == "int64":
        n_operand = operand(code(prefix, EXAMPLE_INT64), [], "SUBGRAPH_INPUT",
                            n_data if n_data is not None else struct.pack("<q", n), consumers=1)
    else:
        n_operand = operand("TENSOR_FLOAT32", [1], "SUBGRAPH_INPUT",
                            n_data if n_data is not None else struct.pack("<f", n), consumers=1)
    golden = fibonacci(max(n, 0))
    if output_kind == "quant64":
        data = b"".join(struct.pack("<Q", int(v / scale + zero_point)) for v in golden)
        params = quant64_params(scale, zero_point) if output_params is None else output_params
        out = operand(code(prefix, EXAMPLE_TENSOR_QUANT64_ASYMM), [max(n, 0)], "SUBGRAPH_OUTPUT", data,
                      params=params if params != b"" else None)
    else:
        data = b"".join(struct.pack("<f", float(v)) for v in golden)
        out = operand("TENSOR_FLOAT32", [max(n, 0)], "SUBGRAPH_OUTPUT", data)
    operands = [n_operand, out]
    operation = {"type": code(prefix, EXAMPLE_FIBONACCI), "inputs": [0], "outputs": [1]}
    if extra is not None:
        extra(operands, operation)
    return model(name, operands, [operation], [0], [1], [(FIB, prefix)], expect_failure)


def fibonacci_spec():
    models = []
    # Every input and output type, with prefixes from the smallest to the largest.
    for prefix in (1, 2, 3, 255, 256, 4096, 32767, 32768, 65534, 65535):
        for input_kind in ("int64", "float32"):
            for output_kind in ("quant64", "float32"):
                models.append(fib_model(f"fibonacci_{input_kind}_to_{output_kind}_prefix_{prefix}", prefix, 10,
                                        input_kind, output_kind))
    models.append(fib_model("fibonacci_n_1", 7, 1, "int64", "quant64", scale=1.0, zero_point=0))
    models.append(fib_model("fibonacci_n_93_last_without_overflow", 7, 93, "int64", "quant64", scale=1.0,
                            zero_point=0))
    models.append(fib_model("fibonacci_scale_0_25_zero_point_100", 9, 20, "float32", "quant64", scale=0.25,
                            zero_point=100))

    # FibonacciExtensionTest.ModelWithTemporaries: ADD (a no-op) before and after.
    n = 10
    golden = b"".join(struct.pack("<f", float(v)) for v in fibonacci(n))
    ops = [operand("TENSOR_FLOAT32", [1], "SUBGRAPH_INPUT", struct.pack("<f", n), consumers=1),
           operand("TENSOR_FLOAT32", [1], "CONSTANT_COPY", struct.pack("<f", 0.0), consumers=1),
           operand("INT32", [], "CONSTANT_COPY", struct.pack("<i", 0), consumers=2),
           operand("TENSOR_FLOAT32", [1], "TEMPORARY_VARIABLE", consumers=1),
           operand("TENSOR_FLOAT32", [n], "TEMPORARY_VARIABLE", consumers=1),
           operand("TENSOR_FLOAT32", [n], "CONSTANT_COPY", bytes(4 * n), consumers=1),
           operand("TENSOR_FLOAT32", [n], "SUBGRAPH_OUTPUT", golden)]
    operations = [{"type": "ADD", "inputs": [0, 1, 2], "outputs": [3]},
                  {"type": code(5, EXAMPLE_FIBONACCI), "inputs": [3], "outputs": [4]},
                  {"type": "ADD", "inputs": [4, 5, 2], "outputs": [6]}]
    models.append(model("fibonacci_between_built_in_operations", ops, operations, [0], [6], [(FIB, 5)]))

    # Invalid models, each refused by the device (at preparation, or at execution for n).
    def with_input(type_, dims, data):
        def change(operands, _):
            operands[0] = operand(type_, dims, "SUBGRAPH_INPUT", data, consumers=1)
        return change

    two_outputs = fib_model("invalid_two_outputs", 3, 4, "float32", "float32", expect_failure=True,
                            extra=lambda o, op: (o.append(operand("TENSOR_FLOAT32", [4], "SUBGRAPH_OUTPUT")),
                                                 op.__setitem__("outputs", [1, 2])))
    two_outputs["main"]["output_indexes"] = [1, 2]
    models += [
        fib_model("invalid_input_type_tensor_int32", 3, 1, "float32", "float32", expect_failure=True,
                  extra=with_input("TENSOR_INT32", [1], struct.pack("<i", 1))),
        fib_model("invalid_output_type_tensor_int32", 3, 1, "float32", "float32", expect_failure=True,
                  extra=lambda o, _: o.__setitem__(1, operand("TENSOR_INT32", [1], "SUBGRAPH_OUTPUT",
                                                                struct.pack("<i", 1)))),
        fib_model("invalid_operation_type_1", 3, 4, "int64", "float32", expect_failure=True,
                  extra=lambda _, op: op.__setitem__("type", code(3, EXAMPLE_FIBONACCI + 1))),
        fib_model("invalid_two_inputs", 3, 4, "int64", "float32", expect_failure=True,
                  extra=lambda _, op: op.__setitem__("inputs", [0, 0])),
        two_outputs,
        fib_model("invalid_n_0", 3, 0, "int64", "float32", expect_failure=True),
        fib_model("invalid_n_negative", 3, 4, "float32", "float32", expect_failure=True,
                  n_data=struct.pack("<f", -1.0)),
        fib_model("invalid_n_float32_of_2_elements", 3, 4, "float32", "float32", expect_failure=True,
                  extra=with_input("TENSOR_FLOAT32", [2], struct.pack("<ff", 4, 4))),
        fib_model("invalid_int64_scalar_with_dimensions", 3, 4, "int64", "float32", expect_failure=True,
                  extra=with_input(code(3, EXAMPLE_INT64), [1], struct.pack("<q", 4))),
        fib_model("invalid_quant64_without_params", 3, 4, "int64", "quant64", expect_failure=True,
                  output_params=b""),
        fib_model("invalid_quant64_scale_0", 3, 4, "int64", "quant64", expect_failure=True,
                  output_params=quant64_params(0.0, 10)),
        fib_model("invalid_quant64_params_too_short", 3, 4, "int64", "quant64", expect_failure=True,
                  output_params=b"\0" * 8),
        fib_model("invalid_undeclared_operand_type_7", 3, 4, "int64", "float32", expect_failure=True,
                  extra=with_input(code(3, 7), [], struct.pack("<q", 4))),
        fib_model("invalid_prefix_not_in_extension_name_to_prefix", 3, 4, "int64", "float32",
                  expect_failure=True, extra=lambda _, op: op.__setitem__("type", code(4, EXAMPLE_FIBONACCI))),
    ]
    unknown = fib_model("invalid_unknown_extension", 3, 4, "int64", "float32", expect_failure=True)
    unknown["extension_name_to_prefix"] = [{"name": "com.example.unknown", "prefix": 3}]
    models.append(unknown)
    zero = fib_model("invalid_prefix_0", 3, 4, "int64", "float32", expect_failure=True)
    zero["extension_name_to_prefix"] = [{"name": FIB, "prefix": 0}]
    models.append(zero)
    return {"spec": "fibonacci", "version": "extensions", "models": models}


def gelu(x):
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def transformer_spec():
    batches, input_size, units = 2, 4, 3
    x = [f32(0.25 * (i % 7) - 0.75) for i in range(batches * input_size)]
    w = [f32(0.125 * ((i * 5) % 9) - 0.5) for i in range(units * input_size)]
    b = [f32(0.1), f32(-0.2), f32(0.3)]
    out = []
    for row in range(batches):
        for u in range(units):
            s = sum(x[row * input_size + i] * w[u * input_size + i] for i in range(input_size)) + b[u]
            out.append(gelu(s))
    pack = lambda values: b"".join(struct.pack("<f", v) for v in values)
    models = []
    for prefix in (1, 300, 65535):
        ops = [operand("TENSOR_FLOAT32", [batches, input_size], "SUBGRAPH_INPUT", pack(x), consumers=1),
               operand("TENSOR_FLOAT32", [units, input_size], "CONSTANT_COPY", pack(w), consumers=1),
               operand("TENSOR_FLOAT32", [units], "CONSTANT_COPY", pack(b), consumers=1),
               operand("TENSOR_FLOAT32", [batches, units], "SUBGRAPH_OUTPUT", pack(out))]
        models.append(model(f"fully_connected_gelu_prefix_{prefix}", ops,
                            [{"type": code(prefix, NNREMOTE_FULLY_CONNECTED_GELU), "inputs": [0, 1, 2],
                              "outputs": [3]}], [0], [3], [(TRANSFORMER, prefix)]))
    # Both extensions in one model, each under its own prefix.
    n = 5
    fib_golden = pack([float(v) for v in fibonacci(n)])
    ops = [operand("TENSOR_FLOAT32", [batches, input_size], "SUBGRAPH_INPUT", pack(x), consumers=1),
           operand("TENSOR_FLOAT32", [units, input_size], "CONSTANT_COPY", pack(w), consumers=1),
           operand("TENSOR_FLOAT32", [units], "CONSTANT_COPY", pack(b), consumers=1),
           operand("TENSOR_FLOAT32", [batches, units], "SUBGRAPH_OUTPUT", pack(out)),
           operand(code(2, EXAMPLE_INT64), [], "SUBGRAPH_INPUT", struct.pack("<q", n), consumers=1),
           operand("TENSOR_FLOAT32", [n], "SUBGRAPH_OUTPUT", fib_golden)]
    models.append(model("fully_connected_gelu_and_fibonacci", ops,
                        [{"type": code(9, NNREMOTE_FULLY_CONNECTED_GELU), "inputs": [0, 1, 2], "outputs": [3]},
                         {"type": code(2, EXAMPLE_FIBONACCI), "inputs": [4], "outputs": [5]}],
                        [0, 4], [3, 5], [(TRANSFORMER, 9), (FIB, 2)]))
    bad = [operand("TENSOR_FLOAT32", [batches, input_size], "SUBGRAPH_INPUT", pack(x), consumers=1),
           operand("TENSOR_FLOAT32", [units, input_size + 1], "CONSTANT_COPY", pack(w + [0.0] * units),
                   consumers=1),
           operand("TENSOR_FLOAT32", [units], "CONSTANT_COPY", pack(b), consumers=1),
           operand("TENSOR_FLOAT32", [batches, units], "SUBGRAPH_OUTPUT", pack(out))]
    models.append(model("invalid_fully_connected_gelu_weights_do_not_match_the_input", bad,
                        [{"type": code(1, NNREMOTE_FULLY_CONNECTED_GELU), "inputs": [0, 1, 2], "outputs": [3]}],
                        [0], [3], [(TRANSFORMER, 1)], expect_failure=True))
    return {"spec": "transformer", "version": "extensions", "models": models}


if __name__ == "__main__":
    for name, spec in (("fibonacci.json", fibonacci_spec()), ("transformer.json", transformer_spec())):
        with open(name, "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
