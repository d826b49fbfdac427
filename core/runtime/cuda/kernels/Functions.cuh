// The elementwise functions on the device (see DeviceKernels.h for their list and formulas).
#pragma once

#include "runtime/cuda/DeviceKernels.h"

#include <cmath>

namespace portolan::runtime::cuda {

__device__ __forceinline__ float applyFunction(const FunctionSpec &f, float x)
{
    switch (f.kind) {
    case Function::Identity: return x;
    case Function::Relu: return x > 0.f || isnan(x) ? x : 0.f;
    case Function::LeakyRelu: return x >= 0.f ? x : f.p0 * x;
    case Function::Elu: return x >= 0.f ? x : f.p0 * expm1f(x);
    case Function::Clip: return x < f.p0 ? f.p0 : (x > f.p1 ? f.p1 : x);
    case Function::Sigmoid: return x >= 0.f ? 1.f / (1.f + expf(-x)) : expf(x) / (1.f + expf(x));
    case Function::HardSigmoid: return isnan(x) ? x : fminf(fmaxf(f.p0 * x + f.p1, 0.f), 1.f);
    case Function::HardSwish: return x * fminf(fmaxf(x / 6.f + 0.5f, 0.f), 1.f);
    case Function::Tanh: return tanhf(x);
    case Function::Gelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case Function::GeluTanh: return 0.5f * x * (1.f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case Function::Exp: return expf(x);
    case Function::Log: return logf(x);
    case Function::Sqrt: return sqrtf(x);
    case Function::Abs: return fabsf(x);
    case Function::Neg: return -x;
    case Function::Erf: return erff(x);
    case Function::Reciprocal: return 1.f / x;
    }
    return x;
}

__device__ __forceinline__ float applyBinary(BinaryOp op, float a, float b)
{
    switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Max: return isnan(a) || isnan(b) ? nanf("") : fmaxf(a, b);
    case BinaryOp::Min: return isnan(a) || isnan(b) ? nanf("") : fminf(a, b);
    case BinaryOp::Pow: return b == 2.f ? a * a : powf(a, b);
    }
    return a;
}

__device__ __forceinline__ bool applyCompare(CompareOp op, float a, float b)
{
    switch (op) {
    case CompareOp::Greater: return a > b;
    case CompareOp::Less: return a < b;
    case CompareOp::Equal: return a == b;
    case CompareOp::GreaterOrEqual: return a >= b;
    case CompareOp::LessOrEqual: return a <= b;
    }
    return false;
}

} // namespace portolan::runtime::cuda
