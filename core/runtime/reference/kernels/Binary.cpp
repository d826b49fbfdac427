// Broadcasting elementwise kernels on two or more inputs: arithmetic, comparison, logic, PRelu,
// the variadic Max/Min/Sum/Mean, Where and Clip. Opsets before 7 broadcast B into A from `axis`
// when `broadcast=1` (the legacy rule); later opsets broadcast both ways as numpy does.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/Dispatch.h"
#include "support/IntegerArithmetic.h"

#include "ir/Type.h"
#include "support/ParallelFor.h"

#include <cmath>
#include <limits>
#include <string_view>

namespace portolan::runtime::kernels {

namespace {

// The legacy (opset < 7) rule: with `broadcast=1`, B's dims line up with A's starting at `axis`
// (default: trailing) and B is stretched over the rest; with `broadcast=0` the shapes must match.
// An axis that does not place B inside A is an error, never a quiet fall-back to numpy's rule.
support::Expected<Tensor> legacyAlign(const KernelContext &ctx, const Tensor &a, const Tensor &b)
{
    // PRelu before opset 7 took one slope per channel (axis 1) as a 1-D tensor
    if (ctx.opset() < 7 && ctx.node().opType == "PRelu" && b.rank() == 1 && a.rank() >= 2 && b.size() == a.dim(1) &&
        b.size() != 1) {
        Shape shape(a.rank() - 1, 1);
        shape[0] = b.size();
        return b.reshaped(shape);
    }
    // Only the domain-"" ops of opsets 1-6 carry the attributes (PRelu-6 has none of them).
    if (ctx.opset() >= 7 || !ctx.node().domain.empty() || ctx.node().opType == "PRelu")
        return b;
    if (ctx.attrInt("broadcast", 0) == 0) {
        ctx.attrInt("axis", 0); // meaningless without broadcast: read so the guard does not name it
        if (a.shape() != b.shape())
            return ctx.error("broadcast=0 requires both inputs to have one shape (opset " +
                             std::to_string(ctx.opset()) + " has no implicit broadcasting)");
        return b;
    }
    const auto rankA = static_cast<std::int64_t>(a.rank());
    const auto rankB = static_cast<std::int64_t>(b.rank());
    if (rankB > rankA)
        return ctx.error("broadcast=1 needs B's rank (" + std::to_string(rankB) + ") to be at most A's (" +
                         std::to_string(rankA) + ")");
    const std::int64_t axis = ctx.attrInt("axis", rankA - rankB);
    if (axis < 0 || axis + rankB > rankA)
        return ctx.error("axis " + std::to_string(axis) + " does not place B (rank " + std::to_string(rankB) +
                         ") inside A (rank " + std::to_string(rankA) + "): it must lie in [0, " +
                         std::to_string(rankA - rankB) + "]");
    for (std::int64_t i = 0; i < rankB; ++i) {
        const auto dimB = b.dim(static_cast<std::size_t>(i)), dimA = a.dim(static_cast<std::size_t>(axis + i));
        if (dimB != dimA && dimB != 1)
            return ctx.error("B's dim " + std::to_string(i) + " (" + std::to_string(dimB) + ") does not match A's dim " +
                             std::to_string(axis + i) + " (" + std::to_string(dimA) + ") at axis " +
                             std::to_string(axis));
    }
    Shape shape(static_cast<std::size_t>(axis), 1);
    shape.insert(shape.end(), b.shape().begin(), b.shape().end());
    shape.resize(static_cast<std::size_t>(rankA), 1);
    return b.reshaped(shape);
}

/// out[i] = f(a[ia], b[ib]) over the broadcast of a and b, row by row (see BroadcastWalker), the rows
/// of a large output shared among the cores.
template <typename A, typename B, typename O, typename F>
void broadcastApply(const Tensor &a, const Tensor &b, Tensor &out, F &&f)
{
    const A *x = a.data<A>();
    const B *y = b.data<B>();
    O *z = out.mutableData<O>();
    const BroadcastWalker start(out.shape(), {a.shape(), b.shape()});
    const std::int64_t width = start.rowLength(), rows = width ? out.size() / width : 0;
    const std::int64_t sx = start.rowStride(0), sy = start.rowStride(1);
    support::parallelFor(rows, out.size() >= (std::int64_t(1) << 16), [&](std::int64_t first, std::int64_t last) {
        const auto fn = f; // a local copy: stores through z cannot alias its captures
        BroadcastWalker walk = start;
        walk.seekRow(first);
        for (std::int64_t row = first; row < last; ++row, walk.nextRow()) {
            const A *xr = x + walk.offset(0);
            const B *yr = y + walk.offset(1);
            O *zr = z + row * width;
            if (sx == 1 && sy == 1) // the common layouts get loops the compiler can vectorize
                for (std::int64_t i = 0; i < width; ++i)
                    zr[i] = fn(xr[i], yr[i]);
            else if (sx == 1 && sy == 0)
                for (std::int64_t i = 0; i < width; ++i)
                    zr[i] = fn(xr[i], yr[0]);
            else if (sx == 0 && sy == 1)
                for (std::int64_t i = 0; i < width; ++i)
                    zr[i] = fn(xr[0], yr[i]);
            else
                for (std::int64_t i = 0; i < width; ++i)
                    zr[i] = fn(xr[i * sx], yr[i * sy]);
        }
    });
}

support::Expected<Shape> outputShape(KernelContext &ctx, const Tensor &a, const Tensor &b)
{
    auto shape = broadcastShapes({a.shape(), b.shape()});
    if (!shape)
        return ctx.error("cannot broadcast " + shapeString(a.shape()) + " with " + shapeString(b.shape()));
    return *shape;
}

// The broadcast output of a and b, allocated with element type `type`.
support::Expected<Tensor> allocateBroadcast(KernelContext &ctx, const Tensor &a, const Tensor &b, int type)
{
    auto shape = outputShape(ctx, a, b);
    if (!shape)
        return shape.takeError();
    return ctx.allocateUninitialized(type, *shape); // broadcastApply writes every element
}

// Arithmetic ops: same-type operands, result of that type.
support::Status arithmetic(KernelContext &ctx, std::string_view op, const Tensor &a, const Tensor &b)
{
    if (a.dataType() != b.dataType())
        return ctx.error("operands have different element types");
    auto out = allocateBroadcast(ctx, a, b, a.dataType());
    if (!out)
        return out.takeError();
    const bool fmodMode = ctx.attrInt("fmod", 0) != 0;
    const bool left = ctx.attrString("direction") == "LEFT";
    support::Status status;
    const bool known = visitNumeric(a.dataType(), [&]<typename T>() {
        if constexpr (std::is_integral_v<T>) {
            // wrapping, never trapping: see support/IntegerArithmetic.h
            if (op == "Add")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::wrappingAdd(x, y); });
            else if (op == "Sub")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::wrappingSub(x, y); });
            else if (op == "Mul")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::wrappingMul(x, y); });
            else if (op == "Div")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::integerDivide(x, y); });
            else if (op == "Mod" && fmodMode)
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::truncatedRemainder(x, y); });
            else if (op == "Mod")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return support::flooredRemainder(x, y); });
        } else {
            if (op == "Add")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x + y); });
            else if (op == "Sub")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x - y); });
            else if (op == "Mul")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x * y); });
            else if (op == "Div")
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x / y); });
            else if (op == "Mod" && fmodMode)
                broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(std::fmod(x, y)); });
            else if (op == "Mod")
                status = ctx.error("Mod of floating-point values needs fmod = 1 (the spec leaves fmod = 0 to integers)");
        }
        if (op == "BitShift") {
            if constexpr (std::is_unsigned_v<T>)
                broadcastApply<T, T, T>(a, b, *out, [left](T x, T y) { return support::shiftBits(x, y, left); });
            else
                status = ctx.error("BitShift takes unsigned integers");
        } else if (op == "PRelu") {
            if constexpr (std::is_integral_v<T>)
                broadcastApply<T, T, T>(a, b, *out, [](T x, T slope) { return x < T(0) ? support::wrappingMul(slope, x) : x; });
            else
                broadcastApply<T, T, T>(a, b, *out, [](T x, T slope) { return x < T(0) ? static_cast<T>(slope * x) : x; });
        }
    });
    if (!known)
        return ctx.error(std::string(op) + " does not take " + ir::dataTypeName(a.dataType()));
    if (!status)
        return status;
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status power(KernelContext &ctx, const Tensor &a, const Tensor &b)
{
    auto out = allocateBroadcast(ctx, a, b, a.dataType());
    if (!out)
        return out.takeError();
    bool known = false;
    visitNumeric(a.dataType(), [&]<typename T>() {
        known = visitNumeric(b.dataType(), [&]<typename E>() {
            // x² (a LayerNorm's variance) as x·x: exact in double for float x, as pow's result is
            if (b.size() == 1 && static_cast<double>(b.data<E>()[0]) == 2.0 && std::is_floating_point_v<T>)
                broadcastApply<T, E, T>(a, b, *out, [](T x, E) { return static_cast<T>(static_cast<double>(x) * static_cast<double>(x)); });
            else
                broadcastApply<T, E, T>(a, b, *out, [](T x, E y) {
                    return static_cast<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
                });
        });
    });
    if (!known)
        return ctx.error("Pow does not take these element types");
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status comparison(KernelContext &ctx, std::string_view op, const Tensor &a, const Tensor &b)
{
    if (a.dataType() != b.dataType())
        return ctx.error("operands have different element types");
    auto out = allocateBroadcast(ctx, a, b, TensorProto::BOOL);
    if (!out)
        return out.takeError();
    auto run = [&]<typename T>() {
        using R = std::uint8_t;
        if (op == "Equal")
            broadcastApply<T, T, R>(a, b, *out, [](T x, T y) { return R(x == y); });
        else if (op == "Less")
            broadcastApply<T, T, R>(a, b, *out, [](T x, T y) { return R(x < y); });
        else if (op == "LessOrEqual")
            broadcastApply<T, T, R>(a, b, *out, [](T x, T y) { return R(x <= y); });
        else if (op == "Greater")
            broadcastApply<T, T, R>(a, b, *out, [](T x, T y) { return R(x > y); });
        else if (op == "GreaterOrEqual")
            broadcastApply<T, T, R>(a, b, *out, [](T x, T y) { return R(x >= y); });
    };
    if (a.dataType() == TensorProto::STRING) { // Equal-19
        if (op != "Equal")
            return ctx.error(std::string(op) + " does not take string");
        const std::vector<std::string> &xs = a.strings(), &ys = b.strings();
        auto *z = out->mutableData<std::uint8_t>();
        BroadcastWalker walk(out->shape(), {a.shape(), b.shape()});
        for (std::int64_t i = 0; i < out->size(); ++i, walk.next())
            z[i] = xs[static_cast<std::size_t>(walk.offset(0))] == ys[static_cast<std::size_t>(walk.offset(1))];
    } else if (a.dataType() == TensorProto::BOOL)
        run.template operator()<std::uint8_t>();
    else if (!visitNumeric(a.dataType(), run))
        return ctx.error(std::string(op) + " does not take " + ir::dataTypeName(a.dataType()));
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status logical(KernelContext &ctx, std::string_view op, const Tensor &a, const Tensor &b)
{
    if (a.dataType() != TensorProto::BOOL || b.dataType() != TensorProto::BOOL)
        return ctx.error(std::string(op) + " takes bool inputs");
    auto out = allocateBroadcast(ctx, a, b, TensorProto::BOOL);
    if (!out)
        return out.takeError();
    using R = std::uint8_t;
    if (op == "And")
        broadcastApply<R, R, R>(a, b, *out, [](R x, R y) { return R(x && y); });
    else if (op == "Or")
        broadcastApply<R, R, R>(a, b, *out, [](R x, R y) { return R(x || y); });
    else
        broadcastApply<R, R, R>(a, b, *out, [](R x, R y) { return R((x != 0) != (y != 0)); });
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace

support::Status binary(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const std::string_view op = ctx.node().opType;
    const Tensor &rawA = ctx.input(0);
    const int originalType = rawA.dataType();
    const Tensor a = toComputeType(rawA);
    auto aligned = legacyAlign(ctx, rawA, ctx.input(1));
    if (!aligned)
        return aligned.takeError();
    const Tensor b = toComputeType(*aligned);

    if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual")
        return comparison(ctx, op, a, b);
    if (op == "And" || op == "Or" || op == "Xor")
        return logical(ctx, op, a, b);
    const auto st = op == "Pow" ? power(ctx, a, b) : arithmetic(ctx, op, a, b);
    if (st && isHalfType(originalType))
        ctx.setOutput(0, fromComputeType(ctx.outputs()[0].tensor, originalType));
    return st;
}

/// BitwiseAnd, BitwiseOr, BitwiseXor (broadcasting) and BitwiseNot, on integer tensors (opset 18).
support::Status bitwise(KernelContext &ctx)
{
    const std::string_view op = ctx.node().opType;
    const bool unary = op == "BitwiseNot";
    if (auto st = ctx.requireInputs(unary ? 1 : 2); !st)
        return st;
    const Tensor &a = ctx.input(0);
    const Tensor &b = unary ? a : ctx.input(1);
    if (a.dataType() != b.dataType())
        return ctx.error("operands have different element types");
    auto out = allocateBroadcast(ctx, a, b, a.dataType());
    if (!out)
        return out.takeError();
    const bool known = visitInteger(a.dataType(), [&]<typename T>() {
        if (op == "BitwiseAnd")
            broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x & y); });
        else if (op == "BitwiseOr")
            broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x | y); });
        else if (op == "BitwiseXor")
            broadcastApply<T, T, T>(a, b, *out, [](T x, T y) { return static_cast<T>(x ^ y); });
        else
            broadcastApply<T, T, T>(a, b, *out, [](T x, T) { return static_cast<T>(~x); });
    });
    if (!known)
        return ctx.error(std::string(op) + " takes integer tensors, not " + ir::dataTypeName(a.dataType()));
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status variadic(KernelContext &ctx)
{
    if (ctx.inputCount() == 0)
        return ctx.error("needs at least one input");
    if (auto st = ctx.requireInputs(ctx.inputCount()); !st)
        return st;
    const std::string_view op = ctx.node().opType;
    const int originalType = ctx.input(0).dataType();
    Tensor acc = toComputeType(ctx.input(0));
    for (std::size_t k = 1; k < ctx.inputCount(); ++k) {
        const Tensor next = toComputeType(ctx.input(k));
        if (next.dataType() != acc.dataType())
            return ctx.error("inputs have different element types");
        auto out = allocateBroadcast(ctx, acc, next, acc.dataType());
        if (!out)
            return out.takeError();
        const bool known = visitNumeric(acc.dataType(), [&]<typename T>() {
            if (op == "Max")
                broadcastApply<T, T, T>(acc, next, *out, [](T x, T y) {
                    if constexpr (std::is_floating_point_v<T>)
                        if (std::isnan(x) || std::isnan(y))
                            return std::numeric_limits<T>::quiet_NaN();
                    return x > y ? x : y;
                });
            else if (op == "Min")
                broadcastApply<T, T, T>(acc, next, *out, [](T x, T y) {
                    if constexpr (std::is_floating_point_v<T>)
                        if (std::isnan(x) || std::isnan(y))
                            return std::numeric_limits<T>::quiet_NaN();
                    return x < y ? x : y;
                });
            else if constexpr (std::is_integral_v<T>)
                broadcastApply<T, T, T>(acc, next, *out, [](T x, T y) { return support::wrappingAdd(x, y); });
            else
                broadcastApply<T, T, T>(acc, next, *out, [](T x, T y) { return static_cast<T>(x + y); });
        });
        if (!known)
            return ctx.error(std::string(op) + " does not take " + ir::dataTypeName(acc.dataType()));
        acc = std::move(*out);
    }
    if (op == "Mean") {
        const auto count = static_cast<double>(ctx.inputCount());
        Tensor mean = acc.clone();
        visitFloat(mean.dataType(), [&]<typename T>() {
            for (std::int64_t i = 0; i < mean.size(); ++i)
                mean.mutableData<T>()[i] = static_cast<T>(mean.data<T>()[i] / count);
        });
        acc = std::move(mean);
    }
    ctx.setOutput(0, fromComputeType(acc, originalType));
    return support::Status::ok();
}

support::Status where(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &c = ctx.input(0);
    const Tensor &x = ctx.input(1);
    const Tensor &y = ctx.input(2);
    if (c.dataType() != TensorProto::BOOL || x.dataType() != y.dataType())
        return ctx.error("takes a bool condition and two inputs of one type");
    auto shape = broadcastShapes({c.shape(), x.shape(), y.shape()});
    if (!shape)
        return ctx.error("cannot broadcast the three inputs");
    auto out = ctx.allocateUninitialized(x.dataType(), *shape);
    if (!out)
        return out.takeError();
    BroadcastWalker walk(*shape, {c.shape(), x.shape(), y.shape()});
    if (x.dataType() == TensorProto::STRING) {
        auto &o = out->mutableStrings();
        for (std::int64_t i = 0; i < out->size(); ++i, walk.next())
            o[static_cast<std::size_t>(i)] = c.data<std::uint8_t>()[walk.offset(0)]
                                                 ? x.strings()[static_cast<std::size_t>(walk.offset(1))]
                                                 : y.strings()[static_cast<std::size_t>(walk.offset(2))];
    } else {
        visitStorage(x.dataType(), [&]<typename T>() {
            T *o = out->mutableData<T>();
            for (std::int64_t i = 0; i < out->size(); ++i, walk.next())
                o[i] = c.data<std::uint8_t>()[walk.offset(0)] ? x.data<T>()[walk.offset(1)] : y.data<T>()[walk.offset(2)];
        });
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status clip(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    auto out = ctx.allocateUninitialized(x.dataType(), x.shape());
    if (!out)
        return out.takeError();
    const bool known = visitNumeric(x.dataType(), [&]<typename T>() {
        T lo = std::numeric_limits<T>::lowest();
        T hi = std::numeric_limits<T>::max();
        if (ctx.opset() < 11) {
            lo = static_cast<T>(ctx.attrFloat("min", static_cast<float>(std::numeric_limits<float>::lowest())));
            hi = static_cast<T>(ctx.attrFloat("max", std::numeric_limits<float>::max()));
        } else {
            if (ctx.hasInput(1))
                lo = toComputeType(ctx.input(1)).data<T>()[0];
            if (ctx.hasInput(2))
                hi = toComputeType(ctx.input(2)).data<T>()[0];
        }
        const T *in = x.data<T>();
        T *o = out->mutableData<T>();
        const T low = lo, high = hi; // locals: a store through o cannot alias them, so the loop vectorizes
        const std::int64_t n = x.size();
        for (std::int64_t i = 0; i < n; ++i) { // two selects, no branch (NaN passes through both)
            const T raised = in[i] < low ? low : in[i];
            o[i] = raised > high ? high : raised;
        }
    });
    if (!known)
        return ctx.error("Clip does not take " + ir::dataTypeName(x.dataType()));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
