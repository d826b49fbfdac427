// CenterCropPad (opset 18): each listed axis is cropped or zero-padded to its target length around
// its centre; when the difference is odd, the extra element is cropped (or padded) at the end.
#include "runtime/reference/kernels/DataMovement.h"

namespace portolan::runtime::kernels {

support::Status centerCropPad(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto targets = integerList(ctx, ctx.input(1), "shape");
    if (!targets)
        return targets.takeError();
    std::vector<std::int64_t> axes = ctx.attrInts("axes");
    if (axes.empty())
        for (std::size_t d = 0; d < x.rank(); ++d)
            axes.push_back(static_cast<std::int64_t>(d));
    if (targets->size() != axes.size())
        return ctx.error("shape has " + std::to_string(targets->size()) + " values for " + std::to_string(axes.size()) +
                         " axes");
    // offset[d]: where output index 0 of axis d reads in the input (negative: padding comes first)
    Shape outShape = x.shape();
    std::vector<std::int64_t> offset(x.rank(), 0);
    std::vector<bool> seen(x.rank(), false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        auto axis = normalizeAxis(ctx, axes[i], x.rank(), "axes value");
        if (!axis)
            return axis.takeError();
        if (seen[*axis])
            return ctx.error("axis " + std::to_string(axes[i]) + " is listed twice");
        seen[*axis] = true;
        const std::int64_t target = (*targets)[i], dim = x.dim(*axis);
        if (target < 0)
            return ctx.error("shape " + shapeString(*targets) + " has a negative length");
        outShape[*axis] = target;
        offset[*axis] = target <= dim ? (dim - target) / 2 : -((target - dim) / 2);
    }
    auto out = ctx.allocate(x.dataType(), outShape); // zero-filled: the padding
    if (!out)
        return out.takeError();
    const Shape inStrides = stridesOf(x.shape());
    const std::size_t rank = x.rank();
    const bool known = visitElements(x.dataType(), [&]<typename T>() {
        const T *src = elements<T>(x);
        T *dst = mutableElements<T>(*out);
        std::vector<std::int64_t> index(rank, 0);
        for (std::int64_t o = 0; o < out->size(); ++o) {
            std::int64_t from = 0;
            bool inside = true;
            for (std::size_t d = 0; d < rank && inside; ++d) {
                const std::int64_t s = index[d] + offset[d];
                inside = s >= 0 && s < x.dim(d);
                from += s * inStrides[d];
            }
            if (inside)
                dst[o] = src[from];
            for (std::size_t d = rank; d-- > 0;) { // next output index, last axis fastest
                if (++index[d] < outShape[d])
                    break;
                index[d] = 0;
            }
        }
    });
    if (!known)
        return unsupportedType(ctx, x.dataType());
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
