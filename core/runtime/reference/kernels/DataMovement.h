// Shared by the data-movement and indexing kernels: element access for every type (strings included),
// axes and index lists read from integer tensors of any width, and bounded copies.
#pragma once

#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace portolan::runtime::kernels {

/// f.template operator()<T>() with T the storage type of `dataType` (std::string for STRING); false when
/// the type has no fixed-size storage Portolan knows.
template <typename F>
bool visitElements(int dataType, F &&f)
{
    if (dataType == TensorProto::STRING) {
        f.template operator()<std::string>();
        return true;
    }
    return visitStorage(dataType, f);
}

template <typename T>
const T *elements(const Tensor &t)
{
    if constexpr (std::is_same_v<T, std::string>)
        return t.strings().data();
    else
        return t.data<T>();
}

template <typename T>
T *mutableElements(Tensor &t)
{
    if constexpr (std::is_same_v<T, std::string>)
        return t.mutableStrings().data();
    else
        return t.mutableData<T>();
}

inline support::Error unsupportedType(const KernelContext &ctx, int dataType)
{
    return ctx.error("does not take " + ir::dataTypeName(dataType) + " tensors");
}

/// `axis` in [-rank, rank) as a non-negative axis.
inline support::Expected<std::size_t> normalizeAxis(const KernelContext &ctx, std::int64_t axis, std::size_t rank,
                                                    const char *what = "axis")
{
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r)
        return ctx.error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(rank));
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

/// The values of a scalar or 1-D tensor of any integer type.
inline support::Expected<std::vector<std::int64_t>> integerList(const KernelContext &ctx, const Tensor &t,
                                                                const char *what)
{
    std::vector<std::int64_t> values;
    const bool integer = visitInteger(t.dataType(), [&]<typename T>() {
        values.assign(t.data<T>(), t.data<T>() + t.size());
    });
    if (!integer || t.rank() > 1)
        return ctx.error(std::string(what) + " must be a 1-D integer tensor, got " + ir::dataTypeName(t.dataType()) +
                         shapeString(t.shape()));
    return values;
}

/// An integer index tensor as int64 (itself when already int64; otherwise a copy under the memory cap).
inline support::Expected<Tensor> indicesAsInt64(KernelContext &ctx, const Tensor &t, const char *what)
{
    if (t.dataType() == TensorProto::INT64)
        return t;
    auto out = ctx.allocate(TensorProto::INT64, t.shape());
    if (!out)
        return out;
    std::int64_t *o = out->mutableData<std::int64_t>();
    const bool integer = visitInteger(t.dataType(), [&]<typename T>() {
        std::transform(t.data<T>(), t.data<T>() + t.size(), o, [](T v) { return static_cast<std::int64_t>(v); });
    });
    if (!integer)
        return ctx.error(std::string(what) + " must be an integer tensor, got " + ir::dataTypeName(t.dataType()));
    return out;
}

/// An index in [-n, n) made non-negative in place; false when out of range.
inline bool wrapIndex(std::int64_t &index, std::int64_t n)
{
    if (index < 0)
        index += n;
    return index >= 0 && index < n;
}

/// A copy of `t` with its own storage, allocated under the memory cap.
inline support::Expected<Tensor> copyOf(KernelContext &ctx, const Tensor &t)
{
    auto out = ctx.allocate(t.dataType(), t.shape());
    if (!out)
        return out;
    if (!visitElements(t.dataType(), [&]<typename T>() { std::copy_n(elements<T>(t), t.size(), mutableElements<T>(*out)); }))
        return unsupportedType(ctx, t.dataType());
    return out;
}

/// Row-major element strides of `shape`.
inline Shape stridesOf(const Shape &shape)
{
    Shape strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    return strides;
}

/// Sets output 0 to `out`, or passes its error on.
inline support::Status emit(KernelContext &ctx, support::Expected<Tensor> out)
{
    if (!out)
        return out.takeError();
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

/// Product of shape[from, to).
inline std::int64_t dimProduct(const Shape &shape, std::size_t from, std::size_t to)
{
    std::int64_t p = 1;
    for (std::size_t i = from; i < to; ++i)
        p *= shape[i];
    return p;
}

/// The slices idx[0..m) (valid, non-negative) of `x` along `axis`, in that order, under the memory cap.
support::Expected<Tensor> take(KernelContext &ctx, const Tensor &x, std::size_t axis, const std::int64_t *idx,
                               std::int64_t m);

/// A list argument that was attribute `attr` before opset `inputSince` and input `input` from then on;
/// nullopt when not given (Squeeze/Unsqueeze axes, Slice's lists…).
support::Expected<std::optional<std::vector<std::int64_t>>> listArgument(KernelContext &ctx, const char *attr,
                                                                        std::size_t input, int inputSince);
/// Axes in [-rank, rank) as distinct non-negative axes, flagged in a rank-long mask.
support::Expected<std::vector<bool>> axisMask(KernelContext &ctx, const std::vector<std::int64_t> &axes, std::size_t rank);

} // namespace portolan::runtime::kernels
