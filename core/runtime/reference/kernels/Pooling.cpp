// Pooling kernels: MaxPool (with Indices), AveragePool and LpPool over sliding windows, GlobalMaxPool,
// GlobalAveragePool, GlobalLpPool, and MaxUnpool. Each window is read through a gather table built once
// and shared by every (image, channel) plane; sums are taken in double.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

namespace {

/// A sliding-window pool over X [N, C, D…]: its window, gather table and sizes.
struct Pool {
    Window window;
    Tensor table; // [kernel positions, output positions] → input offset in a plane, or −1
    std::int64_t planes = 0, inPlane = 0, outPlane = 0, taps = 0;
    Shape outputShape;
};

support::Expected<Pool> makePool(KernelContext &ctx, const Tensor &x)
{
    if (x.rank() < 3)
        return ctx.error("X must have rank 3 or more ([N, C, D1, …]), got " + shapeString(x.shape()));
    if (!ctx.hasAttribute("kernel_shape"))
        return ctx.error("the kernel_shape attribute is required");
    const Shape spatial(x.shape().begin() + 2, x.shape().end());
    auto window = makeWindow(ctx, spatial, ctx.attrInts("kernel_shape"), ctx.attrInt("ceil_mode", 0) != 0);
    if (!window)
        return window.takeError();
    auto table = windowTable(ctx, *window, window->output, window->input);
    if (!table)
        return table.takeError();
    Pool p;
    p.window = std::move(*window);
    p.table = std::move(*table);
    p.planes = x.dim(0) * x.dim(1);
    p.inPlane = planeSize(p.window.input);
    p.outPlane = planeSize(p.window.output);
    p.taps = planeSize(p.window.kernel);
    p.outputShape = {x.dim(0), x.dim(1)};
    p.outputShape.insert(p.outputShape.end(), p.window.output.begin(), p.window.output.end());
    return p;
}

/// Per output position, how many window positions lie inside the input plus its pads (count_include_pad);
/// a ceil_mode window may reach past the end padding, and those positions never count.
std::vector<double> paddedCounts(const Window &w)
{
    const std::size_t rank = w.rank();
    std::vector<double> counts(static_cast<std::size_t>(planeSize(w.output)));
    Shape q(rank, 0);
    for (double &count : counts) {
        count = 1;
        for (std::size_t i = 0; i < rank; ++i) {
            const std::int64_t start = q[i] * w.strides[i] - w.padsBegin[i];
            const std::int64_t limit = w.input[i] + w.padsEnd[i] - start; // positions left before the end pad stops
            count *= static_cast<double>(std::clamp<std::int64_t>((limit + w.dilations[i] - 1) / w.dilations[i], 0, w.kernel[i]));
        }
        for (std::size_t i = rank; i-- > 0 && ++q[i] == w.output[i];)
            q[i] = 0;
    }
    return counts;
}

/// The Lp exponent: a float attribute in opset 1, an int from opset 2.
double lpExponent(const KernelContext &ctx)
{
    const ir::Attribute *a = ctx.attribute("p");
    if (!a)
        return 2.0;
    return a->proto.type() == onnx::AttributeProto::FLOAT ? a->proto.f() : static_cast<double>(a->proto.i());
}

double lpPower(double v, double p) { return p == 2 ? v * v : (p == 1 ? std::fabs(v) : std::pow(std::fabs(v), p)); }
double lpRoot(double s, double p) { return p == 2 ? std::sqrt(s) : (p == 1 ? s : std::pow(s, 1.0 / p)); }

template <typename T>
bool takesMax(T v, T best, bool empty)
{
    if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(v))
            return empty || !std::isnan(best); // NaN propagates, the first one wins
    return empty || v > best;
}

/// Row-major offset within the input plane → the column-major one storage_order=1 asks for.
std::int64_t columnMajor(std::int64_t offset, const Shape &dims)
{
    std::int64_t result = 0, stride = 1;
    Shape coords(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        coords[i] = offset % dims[i];
        offset /= dims[i];
    }
    for (std::size_t i = 0; i < dims.size(); ++i) {
        result += coords[i] * stride;
        stride *= dims[i];
    }
    return result;
}

} // namespace

support::Status maxPool(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    auto pool = makePool(ctx, x);
    if (!pool)
        return pool.takeError();
    const bool columnOrder = ctx.attrInt("storage_order", 0) != 0;
    auto out = ctx.allocate(x.dataType(), pool->outputShape);
    auto indices = ctx.allocate(TensorProto::INT64, pool->outputShape);
    if (!out || !indices)
        return !out ? out.takeError() : indices.takeError();
    auto run = [&]<typename T>() {
        const T *xs = x.data<T>();
        T *y = out->mutableData<T>();
        std::int64_t *arg = indices->mutableData<std::int64_t>();
        const std::int64_t *table = pool->table.data<std::int64_t>();
        const std::int64_t P = pool->outPlane;
        for (std::int64_t plane = 0; plane < pool->planes; ++plane) {
            const T *src = xs + plane * pool->inPlane;
            T *dst = y + plane * P;
            std::int64_t *at = arg + plane * P;
            std::fill(at, at + P, -1);
            for (std::int64_t kk = 0; kk < pool->taps; ++kk) {
                const std::int64_t *off = table + kk * P;
                for (std::int64_t q = 0; q < P; ++q)
                    if (off[q] >= 0 && takesMax(src[off[q]], dst[q], at[q] < 0)) {
                        dst[q] = src[off[q]];
                        at[q] = off[q];
                    }
            }
            for (std::int64_t q = 0; q < P; ++q) {
                if (at[q] < 0) { // a window entirely in the padding
                    dst[q] = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::lowest();
                    continue;
                }
                at[q] = plane * pool->inPlane + (columnOrder ? columnMajor(at[q], pool->window.input) : at[q]);
            }
        }
    };
    if (!visitFloat(x.dataType(), run) && !visitQuantized(x.dataType(), run))
        return ctx.error("MaxPool takes floating-point, int8 or uint8 inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    if (ctx.wantsOutput(1))
        ctx.setOutput(1, std::move(*indices));
    return support::Status::ok();
}

/// AveragePool and LpPool: a double sum over each window, divided by the window's count or rooted.
support::Status averagePool(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const bool lp = ctx.node().opType == "LpPool";
    const double p = lpExponent(ctx);
    if (lp && !(p > 0))
        return ctx.error("p must be positive");
    const bool includePad = ctx.attrInt("count_include_pad", 0) != 0;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    auto pool = makePool(ctx, x);
    if (!pool)
        return pool.takeError();
    auto out = ctx.allocate(x.dataType(), pool->outputShape);
    auto scratch = ctx.allocate(TensorProto::DOUBLE, {2, pool->outPlane});
    if (!out || !scratch)
        return !out ? out.takeError() : scratch.takeError();
    const std::vector<double> padded = includePad ? paddedCounts(pool->window) : std::vector<double>{};
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        const std::int64_t P = pool->outPlane;
        const std::int64_t *table = pool->table.data<std::int64_t>();
        double *sum = scratch->mutableData<double>();
        double *valid = sum + P;
        for (std::int64_t plane = 0; plane < pool->planes; ++plane) {
            const T *src = x.data<T>() + plane * pool->inPlane;
            std::fill(sum, sum + 2 * P, 0.0);
            for (std::int64_t kk = 0; kk < pool->taps; ++kk) {
                const std::int64_t *off = table + kk * P;
                for (std::int64_t q = 0; q < P; ++q)
                    if (off[q] >= 0) {
                        const double v = static_cast<double>(src[off[q]]);
                        sum[q] += lp ? lpPower(v, p) : v;
                        valid[q] += 1;
                    }
            }
            T *dst = out->mutableData<T>() + plane * P;
            for (std::int64_t q = 0; q < P; ++q) {
                const double count = includePad ? padded[static_cast<std::size_t>(q)] : valid[q];
                dst[q] = static_cast<T>(lp ? lpRoot(sum[q], p) : (count > 0 ? sum[q] / count : 0.0));
            }
        }
    });
    if (!known)
        return ctx.error(ctx.node().opType + " takes floating-point inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

/// GlobalMaxPool, GlobalAveragePool, GlobalLpPool: one value per (image, channel) over all spatial dims.
support::Status globalPool(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const std::string &op = ctx.node().opType;
    const double p = lpExponent(ctx);
    if (op == "GlobalLpPool" && !(p > 0))
        return ctx.error("p must be positive");
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    if (x.rank() < 2)
        return ctx.error("X must have rank 2 or more ([N, C, D…]), got " + shapeString(x.shape()));
    Shape shape = x.shape();
    std::fill(shape.begin() + 2, shape.end(), 1);
    auto out = ctx.allocate(x.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t planes = x.dim(0) * x.dim(1);
    const std::int64_t plane = planes == 0 ? 0 : x.size() / planes;
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        for (std::int64_t c = 0; c < planes; ++c) {
            const T *src = x.data<T>() + c * plane;
            double result = 0;
            if (op == "GlobalMaxPool") {
                T best = plane > 0 ? src[0] : -std::numeric_limits<T>::infinity();
                for (std::int64_t i = 1; i < plane; ++i)
                    if (takesMax(src[i], best, false))
                        best = src[i];
                result = static_cast<double>(best);
            } else {
                for (std::int64_t i = 0; i < plane; ++i)
                    result += op == "GlobalLpPool" ? lpPower(static_cast<double>(src[i]), p) : static_cast<double>(src[i]);
                result = op == "GlobalLpPool" ? lpRoot(result, p) : result / static_cast<double>(plane);
            }
            out->mutableData<T>()[c] = static_cast<T>(result);
        }
    });
    if (!known)
        return ctx.error(op + " takes floating-point inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

/// MaxUnpool: scatters X to the flat positions I of the unpooled shape (N, C, (D−1)·stride − pads + kernel);
/// an output_shape input pads that result with zeros at the end of each axis, as the ONNX reference does.
support::Status maxUnpool(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Tensor &idx = ctx.input(1);
    if (x.rank() < 3)
        return ctx.error("X must have rank 3 or more ([N, C, D1, …]), got " + shapeString(x.shape()));
    if (idx.dataType() != TensorProto::INT64 || idx.shape() != x.shape())
        return ctx.error("I must be an int64 tensor of X's shape");
    const std::size_t rank = x.rank() - 2;
    Shape kernel, strides, pads;
    if (!ctx.hasAttribute("kernel_shape"))
        return ctx.error("the kernel_shape attribute is required");
    if (auto st = detail::readDims(ctx, "kernel_shape", rank, 1, 1, kernel); !st)
        return st;
    if (auto st = detail::readDims(ctx, "strides", rank, 1, 1, strides); !st)
        return st;
    if (auto st = detail::readDims(ctx, "pads", 2 * rank, 0, 0, pads); !st)
        return st;
    Shape unpooled{x.dim(0), x.dim(1)};
    for (std::size_t i = 0; i < rank; ++i) {
        unpooled.push_back((x.dim(i + 2) - 1) * strides[i] - pads[i] - pads[rank + i] + kernel[i]);
        if (unpooled.back() < 0)
            return ctx.error("the pads leave a negative output size on spatial axis " + std::to_string(i));
    }
    Shape shape = unpooled;
    if (ctx.hasInput(2)) {
        const Tensor &s = ctx.input(2);
        if (s.dataType() != TensorProto::INT64 || s.rank() != 1 || s.size() != static_cast<std::int64_t>(x.rank()))
            return ctx.error("output_shape must be a 1-D int64 tensor with one value per axis of X");
        shape.assign(s.data<std::int64_t>(), s.data<std::int64_t>() + s.size());
        for (std::size_t i = 0; i < shape.size(); ++i)
            if (shape[i] < unpooled[i] || (i < 2 && shape[i] != unpooled[i]))
                return ctx.error("output_shape " + shapeString(shape) + " is smaller than the unpooled shape " +
                                 shapeString(unpooled) + " or changes N or C");
    }
    auto out = ctx.allocate(x.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t total = elementCount(unpooled);
    const std::int64_t *at = idx.data<std::int64_t>();
    for (std::int64_t i = 0; i < x.size(); ++i)
        if (at[i] < 0 || at[i] >= total)
            return ctx.error("index " + std::to_string(at[i]) + " in I is outside the unpooled shape " +
                             shapeString(unpooled));
    const bool known = visitStorage(x.dataType(), [&]<typename T>() {
        T *y = out->mutableData<T>();
        for (std::int64_t i = 0; i < x.size(); ++i) {
            std::int64_t rest = at[i], offset = 0, stride = 1;
            for (std::size_t d = shape.size(); d-- > 0;) { // same coordinates, the larger shape's offset
                offset += (rest % unpooled[d]) * stride;
                rest /= unpooled[d];
                stride *= shape[d];
            }
            y[offset] = x.data<T>()[i];
        }
    });
    if (!known)
        return ctx.error("MaxUnpool does not take " + ir::dataTypeName(x.dataType()));
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
