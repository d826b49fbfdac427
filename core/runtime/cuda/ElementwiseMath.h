// The elementwise functions (see DeviceKernels.h for their list and formulas) and the fused chains'
// program interpreter, for the device and the host alike: the kernels call them per element, and
// tst_CudaKernelPlans runs the very same code on the CPU against the reference interpreter.
#pragma once

#include "runtime/cuda/DeviceKernels.h"

#include <math.h>

#if defined(__CUDACC__)
#define PORTOLAN_MATH __host__ __device__ __forceinline__
#else
#define PORTOLAN_MATH inline
#endif

namespace portolan::runtime::cuda {

PORTOLAN_MATH bool isNan(float x)
{
    return x != x;
}

PORTOLAN_MATH float applyFunction(const FunctionSpec &f, float x)
{
    switch (f.kind) {
    case Function::Identity: return x;
    case Function::Relu: return x > 0.f || isNan(x) ? x : 0.f;
    case Function::LeakyRelu: return x >= 0.f ? x : f.p0 * x;
    case Function::Elu: return x >= 0.f ? x : f.p0 * expm1f(x);
    case Function::Clip: return x < f.p0 ? f.p0 : (x > f.p1 ? f.p1 : x);
    case Function::Sigmoid: return x >= 0.f ? 1.f / (1.f + expf(-x)) : expf(x) / (1.f + expf(x));
    case Function::HardSigmoid: return isNan(x) ? x : fminf(fmaxf(f.p0 * x + f.p1, 0.f), 1.f);
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

PORTOLAN_MATH float applyBinary(BinaryOp op, float a, float b)
{
    switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Max: return isNan(a) || isNan(b) ? NAN : fmaxf(a, b);
    case BinaryOp::Min: return isNan(a) || isNan(b) ? NAN : fminf(a, b);
    case BinaryOp::Pow: return b == 2.f ? a * a : powf(a, b);
    }
    return a;
}

PORTOLAN_MATH bool applyCompare(CompareOp op, float a, float b)
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

/// Runs `p`'s instructions over registers `r` (its inputs already loaded) and returns the result.
PORTOLAN_MATH float runProgram(const ElementwiseProgram &p, float *r)
{
    for (int pc = 0; pc < p.instructions; ++pc) {
        const ElementwiseProgram::Instruction &x = p.code[pc];
        float v = 0.f;
        switch (x.op) {
        case ElementwiseProgram::Op::Function: v = applyFunction(x.function, r[x.a]); break;
        case ElementwiseProgram::Op::Binary: v = applyBinary(x.binary, r[x.a], r[x.b]); break;
        case ElementwiseProgram::Op::Compare: v = applyCompare(x.compare, r[x.a], r[x.b]) ? 1.f : 0.f; break;
        case ElementwiseProgram::Op::Not: v = r[x.a] != 0.f ? 0.f : 1.f; break;
        case ElementwiseProgram::Op::And: v = (r[x.a] != 0.f && r[x.b] != 0.f) ? 1.f : 0.f; break;
        case ElementwiseProgram::Op::Or: v = (r[x.a] != 0.f || r[x.b] != 0.f) ? 1.f : 0.f; break;
        case ElementwiseProgram::Op::Xor: v = ((r[x.a] != 0.f) != (r[x.b] != 0.f)) ? 1.f : 0.f; break;
        case ElementwiseProgram::Op::Where: v = r[x.a] != 0.f ? r[x.b] : r[x.c]; break;
        case ElementwiseProgram::Op::Constant: v = x.function.p0; break;
        }
        r[x.dst] = v;
    }
    return r[p.result];
}

} // namespace portolan::runtime::cuda
