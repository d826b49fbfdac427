// The fused elementwise kernel: an ElementwiseProgram interpreted per output element (grid-stride),
// its registers in thread-local storage the compiler keeps in registers where it can. The program
// is uniform across threads, so the switch costs no divergence.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/ElementwiseMath.h"
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
        out[i] = fromFloat<T>(runProgram(p, r));
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
