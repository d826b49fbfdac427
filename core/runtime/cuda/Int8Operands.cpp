// Quantizing constant operands for the int8 products (see Int8Operands.h).
#include "runtime/cuda/Int8Operands.h"

#include <algorithm>
#include <cmath>

namespace portolan::runtime::cuda {

std::int8_t quantizeToInt8(float x, float scale)
{
    if (!(scale > 0) || !std::isfinite(scale) || std::isnan(x))
        return 0; // int8 has no NaN: the CPU's emulation keeps one, a real int8 target cannot
    const float q = std::nearbyint(x / scale); // ties to even, as QuantizeLinear rounds
    return static_cast<std::int8_t>(std::clamp(q, -127.f, 127.f));
}

QuantizedMatrix quantizeMatrix(const Tensor &tensor, bool transpose, bool perRowScales)
{
    const Shape &shape = tensor.shape();
    const std::int64_t r = shape.size() >= 2 ? shape[shape.size() - 2] : 1, c = shape.empty() ? 1 : shape.back();
    QuantizedMatrix q;
    q.rows = transpose ? c : r;
    q.cols = transpose ? r : c;
    q.batch = q.rows * q.cols == 0 ? 0 : tensor.size() / (q.rows * q.cols);
    const float *x = tensor.data<float>();
    // element (b, row, col) of the result, read from the tensor
    auto at = [&](std::int64_t b, std::int64_t row, std::int64_t col) {
        return x[b * r * c + (transpose ? col * c + row : row * c + col)];
    };
    std::vector<float> absMax(static_cast<std::size_t>(perRowScales ? q.rows : 1), 0.f);
    for (std::int64_t b = 0; b < q.batch; ++b)
        for (std::int64_t row = 0; row < q.rows; ++row)
            for (std::int64_t col = 0; col < q.cols; ++col) {
                float &m = absMax[static_cast<std::size_t>(perRowScales ? row : 0)];
                m = std::max(m, std::fabs(at(b, row, col)));
            }
    for (const float m : absMax)
        q.scales.push_back(m / 127.f);
    q.values.resize(static_cast<std::size_t>(q.batch * q.rows * q.cols));
    std::size_t i = 0;
    for (std::int64_t b = 0; b < q.batch; ++b)
        for (std::int64_t row = 0; row < q.rows; ++row)
            for (std::int64_t col = 0; col < q.cols; ++col)
                q.values[i++] = quantizeToInt8(at(b, row, col), q.scales[static_cast<std::size_t>(perRowScales ? row : 0)]);
    return q;
}

bool fitsInt8Product(const MatrixProduct &p, std::string &whyNot)
{
    if (p.n % 4 != 0 || p.k % 4 != 0) {
        whyNot = "cuBLASLt's int8 kernels need N and K in multiples of 4 (N " + std::to_string(p.n) + ", K " + std::to_string(p.k) + ")";
        return false;
    }
    // the transposing quantizer's grid height: B's N rows, and A's M rows under transA
    if (std::max(p.transA ? p.m : 0, p.n) > std::int64_t(65535) * 32) {
        whyNot = "a dimension past " + std::to_string(65535 * 32);
        return false;
    }
    if (p.k * 127 * 127 > INT32_MAX) {
        whyNot = "K " + std::to_string(p.k) + " could overflow the int32 accumulator";
        return false;
    }
    return true;
}

} // namespace portolan::runtime::cuda
