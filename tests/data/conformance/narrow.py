"""Element types numpy and onnx 1.12 do not carry (bfloat16, the float8s, float8e8m0, the 4- and 2-bit
types), as TensorProtos of raw codes, for generate.py's cases with such inputs or outputs.

    decode(tensor)                  -> float64 (or int64 for the integer types) numpy array of its values
    encode(name, type, values, shape) -> TensorProto holding `values`, each exactly representable
    from_codes(name, type, codes, shape) -> TensorProto from raw codes (bit patterns)
    WIDE[type]                      -> the wider ONNX type a Cast maps it onto without loss

ONNX Runtime's node binding reads and writes none of these; generate.py feeds such inputs to it as
initializers and casts such outputs onto WIDE before reading them back, then encodes them here again.
"""

import numpy as np
from onnx import TensorProto

BFLOAT16, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ = 16, 17, 18, 19, 20
UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = 21, 22, 23, 24, 25, 26
BITS = {BFLOAT16: 16, FLOAT8E4M3FN: 8, FLOAT8E4M3FNUZ: 8, FLOAT8E5M2: 8, FLOAT8E5M2FNUZ: 8, UINT4: 4, INT4: 4,
        FLOAT4E2M1: 4, FLOAT8E8M0: 8, UINT2: 2, INT2: 2}
INTEGER = {UINT4: (0, False), INT4: (4, True), UINT2: (0, False), INT2: (2, True)}
WIDE = {t: TensorProto.FLOAT for t in BITS}
WIDE.update({UINT4: TensorProto.UINT8, UINT2: TensorProto.UINT8, INT4: TensorProto.INT8, INT2: TensorProto.INT8})
# (exponent bits, mantissa bits, bias, how the top codes are used)
_MINIFLOATS = {FLOAT8E4M3FN: (4, 3, 7, "fn"), FLOAT8E4M3FNUZ: (4, 3, 8, "fnuz"), FLOAT8E5M2: (5, 2, 15, "ieee"),
               FLOAT8E5M2FNUZ: (5, 2, 16, "fnuz"), FLOAT4E2M1: (2, 1, 1, "finite")}


def _code_value(elem_type, code):
    if elem_type == BFLOAT16:
        return float(np.array([code << 16], np.uint32).view(np.float32)[0])
    if elem_type == FLOAT8E8M0:
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    if elem_type in INTEGER:
        bits, signed = BITS[elem_type], INTEGER[elem_type][1]
        return code - (1 << bits) if signed and code >= 1 << (bits - 1) else code
    e_bits, m_bits, bias, kind = _MINIFLOATS[elem_type]
    sign = code >> (e_bits + m_bits) & 1
    e = code >> m_bits & ((1 << e_bits) - 1)
    m = code & ((1 << m_bits) - 1)
    if kind == "fnuz" and code == 0x80:
        return float("nan")
    if kind == "fn" and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
        return float("nan") if not sign else -float("nan")
    if kind == "ieee" and e == (1 << e_bits) - 1:
        return (-1.0 if sign else 1.0) * (float("inf") if m == 0 else float("nan"))
    value = m * 2.0 ** (1 - bias - m_bits) if e == 0 else (1 + m / 2.0 ** m_bits) * 2.0 ** (e - bias)
    return -value if sign else value


def _table(elem_type):
    return np.array([_code_value(elem_type, c) for c in range(1 << BITS[elem_type])], np.float64)


def _pack(elem_type, codes):
    bits = BITS[elem_type]
    if bits == 16:
        return np.asarray(codes, np.uint16).astype("<u2").tobytes()
    data = bytearray((len(codes) * bits + 7) // 8)
    for i, c in enumerate(codes):
        data[i * bits // 8] |= (int(c) & ((1 << bits) - 1)) << (i * bits % 8)
    return bytes(data)


def from_codes(name, elem_type, codes, shape):
    t = TensorProto()
    t.name = name
    t.data_type = elem_type
    t.dims.extend(list(shape))
    t.raw_data = _pack(elem_type, np.asarray(codes).reshape(-1))
    return t


def codes_of(tensor):
    bits = BITS[tensor.data_type]
    count = int(np.prod(list(tensor.dims))) if len(tensor.dims) else 1
    raw = tensor.raw_data
    if bits == 16:
        return np.frombuffer(raw, "<u2")[:count].astype(np.int64)
    return np.array([(raw[i * bits // 8] >> (i * bits % 8)) & ((1 << bits) - 1) for i in range(count)], np.int64)


def decode(tensor):
    if not isinstance(tensor, TensorProto):
        return np.asarray(tensor)
    values = _table(tensor.data_type)[codes_of(tensor)]
    if tensor.data_type in INTEGER:
        values = values.astype(np.int64)
    return values.reshape(list(tensor.dims))


def encode(name, elem_type, values, shape=None):
    """The codes of values that the type holds exactly (NaN keeps its sign where the type has one)."""
    values = np.asarray(values, np.float64)
    shape = values.shape if shape is None else shape
    table = _table(elem_type)
    codes = []
    for v in values.reshape(-1):
        if np.isnan(v):
            nan_codes = [c for c in range(len(table)) if np.isnan(table[c])]
            signed = [c for c in nan_codes if (c >> (BITS[elem_type] - 1)) == int(np.signbit(v))]
            codes.append(max(signed or nan_codes))
            continue
        hits = [c for c in range(len(table)) if table[c] == v and np.signbit(table[c]) == np.signbit(v)]
        if not hits:
            hits = [c for c in range(len(table)) if table[c] == v]  # -0 where the type has no -0
        if not hits:
            raise ValueError(f"{name}: {v} is not a value of type {elem_type}")
        codes.append(hits[0])
    return from_codes(name, elem_type, codes, shape)

