// The host side of the CUDA executor's int8 products: constant operands quantized once at compile
// time, in the layout cuBLASLt's int8 kernels read, and whether a product fits those kernels. The
// quantization is the CPU executor's (runtime/Precision.h) value for value: weights symmetric
// per output channel (scale = max|w| / 127), everything else per tensor; q = round-half-even(x /
// scale) clamped to ±127. Plain C++: unit-tested without a GPU.
#pragma once

#include "runtime/Tensor.h"
#include "runtime/cuda/MatrixProduct.h"

#include <cstdint>
#include <string>
#include <vector>

namespace portolan::runtime::cuda {

/// q = round-half-even(x / scale) clamped to ±127; 0 when the scale is not positive and finite
/// (a calibration that saw only zeros). The device kernels compute the same.
std::int8_t quantizeToInt8(float x, float scale);

/// A float tensor [..., R, C] quantized as int8 rows: `batch` matrices of `rows` × `cols`, row-major,
/// transposed from the tensor's last two dims when asked. With per-row scales each row (an output
/// channel) has its own over every batch; otherwise one scale for all.
struct QuantizedMatrix {
    std::int64_t batch = 1, rows = 0, cols = 0;
    std::vector<std::int8_t> values;
    std::vector<float> scales; ///< one per row, or one
};
QuantizedMatrix quantizeMatrix(const Tensor &tensor, bool transpose, bool perRowScales);

/// Whether cuBLASLt's int8 kernels take the product (its "TN" layout: both operands K-contiguous;
/// M-independent, but N and K in multiples of 4), or why not.
bool fitsInt8Product(const MatrixProduct &p, std::string &whyNot);

} // namespace portolan::runtime::cuda
