// Shared by the convolution, pooling and quantization kernels: sliding-window geometry (kernel, strides,
// dilations, pads, auto_pad, ceil_mode) and its gather tables, a cache-blocked GEMM with a wide
// accumulator, and the zero-point / scale handling of the quantized ops.
#pragma once

#include "runtime/reference/kernels/GemmKernel.h"
#include "support/ParallelFor.h"

#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include <algorithm>
#include <type_traits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace portolan::runtime::kernels {

/// One sliding window over the spatial dims of an [N, C, D1, …, Dn] tensor.
struct Window {
    Shape input; // spatial dims
    Shape kernel, strides, dilations, padsBegin, padsEnd;
    Shape output; // spatial dims

    std::size_t rank() const { return input.size(); }
    /// Input positions one window spans, dilation included.
    std::int64_t extent(std::size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

namespace detail {

inline support::Status readDims(KernelContext &ctx, const char *name, std::size_t count, std::int64_t fallback,
                                std::int64_t minimum, Shape &out)
{
    out = ctx.attrInts(name);
    if (out.empty())
        out.assign(count, fallback);
    if (out.size() != count)
        return ctx.error(std::string(name) + " has " + std::to_string(out.size()) + " values, expected " +
                         std::to_string(count));
    constexpr std::int64_t maximum = std::int64_t(1) << 32; // keeps window arithmetic far from overflow
    for (const auto v : out)
        if (v < minimum || v > maximum)
            return ctx.error(std::string(name) + " has the value " + std::to_string(v) + ", outside [" +
                             std::to_string(minimum) + ", 2^32]");
    return support::Status::ok();
}

} // namespace detail

/// Reads strides, dilations, pads and auto_pad for `kernel` over `inputSpatial` and computes the output
/// size. ceil_mode keeps a last partial window only when it starts inside the input or its left padding
/// (the PyTorch rule exporters rely on).
inline support::Expected<Window> makeWindow(KernelContext &ctx, const Shape &inputSpatial, const Shape &kernel,
                                            bool ceilMode)
{
    const std::size_t rank = inputSpatial.size();
    Window w;
    w.input = inputSpatial;
    w.kernel = kernel;
    if (w.kernel.size() != rank)
        return ctx.error("the kernel has " + std::to_string(w.kernel.size()) + " dims for " + std::to_string(rank) +
                         " spatial dims");
    for (const auto k : w.kernel)
        if (k < 1 || k > (std::int64_t(1) << 32))
            return ctx.error("kernel dims must be in [1, 2^32], got " + shapeString(w.kernel));
    if (auto st = detail::readDims(ctx, "strides", rank, 1, 1, w.strides); !st)
        return st.error();
    if (auto st = detail::readDims(ctx, "dilations", rank, 1, 1, w.dilations); !st)
        return st.error();
    Shape pads;
    if (auto st = detail::readDims(ctx, "pads", 2 * rank, 0, 0, pads); !st)
        return st.error();
    w.padsBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(rank));
    w.padsEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(rank), pads.end());
    w.output.resize(rank);

    const std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t in = inputSpatial[i], s = w.strides[i], e = w.extent(i);
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            w.output[i] = (in + s - 1) / s;
            const std::int64_t total = std::max<std::int64_t>(0, (w.output[i] - 1) * s + e - in);
            w.padsBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padsEnd[i] = total - w.padsBegin[i];
            continue;
        }
        if (autoPad == "VALID")
            w.padsBegin[i] = w.padsEnd[i] = 0;
        else if (autoPad != "NOTSET" && !autoPad.empty())
            return ctx.error("unknown auto_pad '" + autoPad + "'");
        const std::int64_t span = in + w.padsBegin[i] + w.padsEnd[i] - e;
        if (span < 0)
            return ctx.error("the window (" + std::to_string(e) + " wide on spatial axis " + std::to_string(i) +
                             ") is larger than the padded input (" + std::to_string(span + e) + ")");
        w.output[i] = (ceilMode ? (span + s - 1) / s : span / s) + 1;
        if (ceilMode && (w.output[i] - 1) * s >= in + w.padsBegin[i])
            --w.output[i];
    }
    return w;
}

/// kernel_shape when given, else `inferred` (a weight tensor's spatial dims).
inline Shape kernelShape(const KernelContext &ctx, const Shape &inferred)
{
    Shape k = ctx.attrInts("kernel_shape");
    return k.empty() ? inferred : k;
}

/// Row-major element count of spatial dims.
inline std::int64_t planeSize(const Shape &spatial) { return elementCount(spatial); }

/// An int64 [kernel positions, grid positions] table: for kernel offset k and grid position q, the flat
/// index in `other` of coordinate q·stride − padBegin + k·dilation per axis, or −1 when any axis falls
/// outside. Conv gathers with it (grid = output, other = input); ConvTranspose scatters (grid = input,
/// other = output); pooling reduces over it.
inline support::Expected<Tensor> windowTable(KernelContext &ctx, const Window &w, const Shape &grid, const Shape &other)
{
    const std::size_t rank = w.rank();
    const std::int64_t kernelCount = planeSize(w.kernel), gridCount = planeSize(grid);
    auto table = ctx.allocateUninitialized(TensorProto::INT64, {kernelCount, gridCount});
    if (!table)
        return table;
    std::int64_t *out = table->mutableData<std::int64_t>();
    Shape k(rank, 0), q(rank, 0);
    for (std::int64_t kk = 0; kk < kernelCount; ++kk) {
        std::fill(q.begin(), q.end(), 0);
        for (std::int64_t p = 0; p < gridCount; ++p) {
            std::int64_t offset = 0;
            for (std::size_t i = 0; i < rank && offset >= 0; ++i) {
                const std::int64_t c = q[i] * w.strides[i] - w.padsBegin[i] + k[i] * w.dilations[i];
                offset = (c < 0 || c >= other[i]) ? -1 : offset * other[i] + c;
            }
            *out++ = offset;
            for (std::size_t i = rank; i-- > 0 && ++q[i] == grid[i];)
                q[i] = 0;
        }
        for (std::size_t i = rank; i-- > 0 && ++k[i] == w.kernel[i];)
            k[i] = 0;
    }
    return table;
}

namespace detail {

// Rows rows of a against `count` columns of b (Fixed > 0 makes the count a compile-time constant).
template <typename Acc, typename TA, typename TB, std::int64_t Rows, std::int64_t Fixed>
inline void gemmPanel(const TA *a, std::int64_t lda, const TB *b, std::int64_t ldb, std::int64_t K,
                      std::int64_t runtimeCount, Acc (*acc)[256])
{
    const std::int64_t count = Fixed > 0 ? Fixed : runtimeCount;
    for (std::int64_t k = 0; k < K; ++k) {
        const TB *row = b + k * ldb;
        Acc w[Rows];
        for (std::int64_t r = 0; r < Rows; ++r)
            w[r] = static_cast<Acc>(a[r * lda + k]);
        for (std::int64_t p = 0; p < count; ++p) {
            const Acc v = static_cast<Acc>(row[p]);
            for (std::int64_t r = 0; r < Rows; ++r)
                acc[r][p] += w[r] * v;
        }
    }
}

} // namespace detail

/// c(m, p) = Σ_k a[m·K + k] · b[k·P + p], summed in Acc and handed to store(m, p0, acc, count) one block of
/// columns at a time. Float and double data summed in double take the packed kernel (GemmKernel.h); the
/// rest, integers, a 4-row × 256-column accumulator that keeps a panel of b in cache across all rows of a.
/// With `parallel`, column blocks are spread over the cores: store must then write only (m, p0..p0+count).
template <typename Acc, typename TA, typename TB, typename Store>
void blockedGemm(const TA *a, const TB *b, std::int64_t M, std::int64_t K, std::int64_t P, Store &&store,
                 bool parallel = false)
{
    if constexpr (std::is_same_v<Acc, double> && std::is_same_v<TA, TB> &&
                  (std::is_same_v<TA, float> || std::is_same_v<TA, double>)) { // the packed kernel
        gemmInDouble<TA>({a, K, 1}, {b, P, 1}, M, P, K,
                         [&](std::int64_t m, std::int64_t p0, const double *sums, std::int64_t count) {
                             store(m, p0, sums, count);
                         },
                         parallel);
        return;
    }
    constexpr std::int64_t rows = 4, cols = 256;
    const std::int64_t blocks = (P + cols - 1) / cols;
    const bool worthIt = parallel && M * K * P > (std::int64_t(1) << 22);
    support::parallelFor(blocks, worthIt, [&](std::int64_t firstBlock, std::int64_t lastBlock) {
        Acc acc[rows][cols];
        for (std::int64_t block = firstBlock; block < lastBlock; ++block) {
            const std::int64_t p0 = block * cols;
            const std::int64_t count = std::min(cols, P - p0);
            for (std::int64_t m0 = 0; m0 < M; m0 += rows) {
                const std::int64_t mr = std::min(rows, M - m0);
                for (std::int64_t r = 0; r < mr; ++r)
                    std::fill(acc[r], acc[r] + count, Acc(0));
                const TA *arow = a + m0 * K;
                if (mr == rows && count == cols) // a fixed trip count lets the compiler vectorize at -O2
                    detail::gemmPanel<Acc, TA, TB, rows, cols>(arow, K, b + p0, P, K, cols, acc);
                else
                    for (std::int64_t r = 0; r < mr; ++r)
                        detail::gemmPanel<Acc, TA, TB, 1, 0>(arow + r * K, K, b + p0, P, K, count, acc + r);
                for (std::int64_t r = 0; r < mr; ++r)
                    store(m0 + r, p0, acc[r], count);
            }
        }
    });
}

// --- quantized ops

/// f.template operator()<T>() for the 8-bit quantized types.
template <typename F>
bool visitQuantized(int dataType, F &&f)
{
    switch (dataType) {
    case TensorProto::INT8: f.template operator()<std::int8_t>(); return true;
    case TensorProto::UINT8: f.template operator()<std::uint8_t>(); return true;
    default: return false;
    }
}

/// Rounds v half to even, adds the zero point (after rounding: an odd zero point must not flip a tie)
/// and saturates to Q; NaN becomes Q's lowest value rather than undefined behavior.
template <typename Q>
Q saturateRound(double v, double zeroPoint = 0)
{
    const double r = std::nearbyint(v) + zeroPoint;
    constexpr double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
    return static_cast<Q>(!(r >= lo) ? lo : (r > hi ? hi : r));
}

/// A scale or zero point: one value (a scalar or one-element tensor) for the whole tensor, or a 1-D tensor
/// of `count` values, one per channel. Absent (undefined) gives {fallback}.
inline support::Expected<std::vector<double>> quantParams(KernelContext &ctx, const Tensor &t, std::int64_t count,
                                                          const char *what, double fallback = 0)
{
    if (!t.defined())
        return std::vector<double>{fallback};
    if (t.size() != 1 && (t.rank() != 1 || t.size() != count))
        return ctx.error(std::string(what) + " must be a scalar or hold " + std::to_string(count) +
                         " values (one per channel), got " + shapeString(t.shape()));
    const Tensor d = convertTensor(t, TensorProto::DOUBLE);
    return std::vector<double>(d.data<double>(), d.data<double>() + d.size());
}

/// Quantized values minus their zero point (per tensor, or per channel where element i is in channel
/// (i / inner) % channels), widened to int32 so the integer GEMM sums exactly.
inline support::Expected<Tensor> centered(KernelContext &ctx, const Tensor &q, const Tensor &zeroPoint,
                                          std::int64_t inner, std::int64_t channels, const char *what)
{
    if (zeroPoint.defined() && zeroPoint.dataType() != q.dataType())
        return ctx.error(std::string(what) + "'s zero point has another element type than " + what);
    auto zp = quantParams(ctx, zeroPoint, channels, (std::string(what) + "'s zero point").c_str());
    if (!zp)
        return zp.takeError();
    auto out = ctx.allocate(TensorProto::INT32, q.shape());
    if (!out)
        return out;
    std::int32_t *dst = out->mutableData<std::int32_t>();
    const bool known = visitQuantized(q.dataType(), [&]<typename Q>() {
        const Q *src = q.data<Q>();
        for (std::int64_t i = 0; i < q.size(); ++i) {
            const double z = zp->size() == 1 ? (*zp)[0] : (*zp)[static_cast<std::size_t>((i / inner) % channels)];
            dst[i] = static_cast<std::int32_t>(src[i]) - static_cast<std::int32_t>(z);
        }
    });
    if (!known)
        return ctx.error(std::string(what) + " must be int8 or uint8");
    return out;
}

} // namespace portolan::runtime::kernels
