// The fused elementwise kernel: an ElementwiseProgram interpreted per output element (grid-stride),
// its registers in thread-local storage the compiler keeps in registers where it can. The program
// is uniform across threads, so the switch costs no divergence.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/kernels/Functions.cuh"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

namespace {

struct InputPointers {
    const void *at[ElementwiseProgram::kMaxInputs];
};

template <typename T>
__global__ void programKernel(ElementwiseProgram p, InputPointers in, T *out)
{
    float r[ElementwiseProgram::kMaxRegisters];
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    const MultiBroadcast &w = p.walk;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < w.count; i += step) {
        std::int64_t offsets[ElementwiseProgram::kMaxInputs] = {};
        std::int64_t rest = i;
        for (int d = w.rank - 1; d >= 0; --d) {
            const std::int64_t q = rest / w.dims[d], coordinate = rest - q * w.dims[d];
            rest = q;
            for (int k = 0; k < p.inputs; ++k)
                offsets[k] += coordinate * w.strides[k][d];
        }
        for (int k = 0; k < p.inputs; ++k)
            if (in.at[k]) // a scalar constant input is an instruction instead
                r[k] = toFloat(static_cast<const T *>(in.at[k])[offsets[k]]);
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
        out[i] = fromFloat<T>(r[p.result]);
    }
}

} // namespace

void launchElementwiseProgram(Storage s, const ElementwiseProgram &program, const void *const *inputs, void *out,
                              int multiprocessors, void *stream)
{
    InputPointers in{};
    for (int k = 0; k < program.inputs; ++k)
        in.at[k] = inputs[k];
    const GridShape g = gridFor(program.walk.count, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        programKernel<T><<<g.blocks, g.threads, 0, static_cast<cudaStream_t>(stream)>>>(program, in, static_cast<T *>(out));
    });
}

} // namespace portolan::runtime::cuda
