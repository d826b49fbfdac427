// Type dispatch for kernels: call a templated lambda with the C++ type of an ONNX element type.
// 16-bit floats are computed in float: kernels convert them with toComputeType()/fromComputeType().
#pragma once

#include "runtime/Half.h"
#include "runtime/Tensor.h"

#include <onnx/onnx_pb.h>

#include <cstdint>

namespace portolan::runtime {
struct NarrowRounding; // runtime/NarrowTypes.h
}

namespace portolan::runtime::kernels {

using onnx::TensorProto;

/// f.template operator()<T>() for the float types (float, double); false for any other type.
template <typename F>
bool visitFloat(int dataType, F &&f)
{
    switch (dataType) {
    case TensorProto::FLOAT: f.template operator()<float>(); return true;
    case TensorProto::DOUBLE: f.template operator()<double>(); return true;
    default: return false;
    }
}

/// The integer types (signed and unsigned, 8 to 64 bits).
template <typename F>
bool visitInteger(int dataType, F &&f)
{
    switch (dataType) {
    case TensorProto::INT8: f.template operator()<std::int8_t>(); return true;
    case TensorProto::INT16: f.template operator()<std::int16_t>(); return true;
    case TensorProto::INT32: f.template operator()<std::int32_t>(); return true;
    case TensorProto::INT64: f.template operator()<std::int64_t>(); return true;
    case TensorProto::UINT8: f.template operator()<std::uint8_t>(); return true;
    case TensorProto::UINT16: f.template operator()<std::uint16_t>(); return true;
    case TensorProto::UINT32: f.template operator()<std::uint32_t>(); return true;
    case TensorProto::UINT64: f.template operator()<std::uint64_t>(); return true;
    default: return false;
    }
}

/// float, double and the integers (not bool, strings or 16-bit floats).
template <typename F>
bool visitNumeric(int dataType, F &&f)
{
    return visitFloat(dataType, f) || visitInteger(dataType, f);
}

/// Every fixed-size type, bool and 16-bit floats included, as storage (for data movement kernels).
template <typename F>
bool visitStorage(int dataType, F &&f)
{
    switch (dataType) {
    case TensorProto::BOOL: f.template operator()<std::uint8_t>(); return true;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: f.template operator()<std::uint16_t>(); return true;
    case TensorProto::COMPLEX64: f.template operator()<std::uint64_t>(); return true;
    default: return visitNumeric(dataType, f);
    }
}

inline bool isHalfType(int dataType)
{
    return dataType == TensorProto::FLOAT16 || dataType == TensorProto::BFLOAT16;
}

/// float, double, float16 or bfloat16.
inline bool isFloatingType(int dataType)
{
    return dataType == TensorProto::FLOAT || dataType == TensorProto::DOUBLE || isHalfType(dataType);
}

/// Converts between any two numeric element types (bool, 16-bit floats and the narrow types included)
/// with ONNX Cast semantics: out-of-range float → int gives the type's minimum or maximum (NaN the
/// minimum); a narrow float saturates (Cast's default); the 4- and 2-bit integers wrap.
Tensor convertTensor(const Tensor &input, int toType);
/// The same with Cast's `saturate` and `round_mode` for the narrow float types.
Tensor convertTensor(const Tensor &input, int toType, const NarrowRounding &rounding);

/// float tensor for a float16/bfloat16 one (the type kernels compute 16-bit floats in); others unchanged.
inline Tensor toComputeType(const Tensor &t) { return isHalfType(t.dataType()) ? convertTensor(t, TensorProto::FLOAT) : t; }
/// Back to `originalType` after computing in float.
inline Tensor fromComputeType(const Tensor &t, int originalType)
{
    return isHalfType(originalType) ? convertTensor(t, originalType) : t;
}

} // namespace portolan::runtime::kernels
