// Data-movement kernels whose output shares the input's storage: Reshape, Flatten, Squeeze, Unsqueeze.
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/TensorOps.h"

namespace portolan::runtime::kernels {

// --- views: the output shares the input's storage

support::Status reshape(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(ctx.opset() < 5 ? 1 : 2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto requested = ctx.opset() < 5 ? support::Expected<std::vector<std::int64_t>>(ctx.attrInts("shape"))
                                     : integerList(ctx, ctx.input(1), "shape");
    if (!requested)
        return requested.takeError();
    const bool allowZero = ctx.opset() >= 14 && ctx.attrInt("allowzero", 0) != 0;
    Shape shape = *requested;
    std::optional<std::size_t> inferred;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (inferred)
                return ctx.error("the shape " + shapeString(*requested) + " has more than one -1");
            inferred = i;
            continue;
        }
        if (shape[i] == 0 && !allowZero) {
            if (i >= x.rank())
                return ctx.error("the shape " + shapeString(*requested) + " copies dim " + std::to_string(i) +
                                 " (0) that the input does not have");
            shape[i] = x.dim(i);
        }
        if (shape[i] < 0)
            return ctx.error("the shape " + shapeString(*requested) + " has a negative dim");
        if (shape[i] != 0 && known > std::numeric_limits<std::int64_t>::max() / shape[i])
            return ctx.error("the shape " + shapeString(*requested) + " has too many elements");
        known *= shape[i];
    }
    if (inferred) {
        if (known == 0 || x.size() % known != 0)
            return ctx.error("cannot infer the -1 in " + shapeString(*requested) + " for " + std::to_string(x.size()) +
                             " elements");
        shape[*inferred] = x.size() / known;
    } else if (known != x.size()) {
        return ctx.error("cannot reshape " + shapeString(x.shape()) + " to " + shapeString(*requested) +
                         " (element counts differ)");
    }
    ctx.setOutput(0, x.reshaped(shape));
    return support::Status::ok();
}

support::Status flatten(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::int64_t axis = ctx.attrInt("axis", 1);
    if (axis < 0 && ctx.opset() >= 11)
        axis += rank;
    if (axis < 0 || axis > rank)
        return ctx.error("axis " + std::to_string(ctx.attrInt("axis", 1)) + " is out of range for rank " +
                         std::to_string(rank));
    const auto split = static_cast<std::size_t>(axis);
    ctx.setOutput(0, x.reshaped({dimProduct(x.shape(), 0, split), dimProduct(x.shape(), split, x.rank())}));
    return support::Status::ok();
}

support::Status squeeze(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto axes = listArgument(ctx, "axes", 1, 13);
    if (!axes)
        return axes.takeError();
    const bool all = !*axes || (*axes)->empty(); // no axes: every size-1 axis
    std::vector<bool> drop(x.rank(), false);
    if (!all) {
        auto mask = axisMask(ctx, **axes, x.rank());
        if (!mask)
            return mask.takeError();
        drop = *mask;
    }
    Shape shape;
    for (std::size_t d = 0; d < x.rank(); ++d) {
        if (drop[d] && x.dim(d) != 1)
            return ctx.error("cannot squeeze axis " + std::to_string(d) + " of size " + std::to_string(x.dim(d)));
        if (!(drop[d] || (all && x.dim(d) == 1)))
            shape.push_back(x.dim(d));
    }
    ctx.setOutput(0, x.reshaped(shape));
    return support::Status::ok();
}

support::Status unsqueeze(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(ctx.opset() < 13 ? 1 : 2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto axes = listArgument(ctx, "axes", 1, 13);
    if (!axes)
        return axes.takeError();
    if (!*axes)
        return ctx.error("needs the 'axes' attribute");
    auto inserted = axisMask(ctx, **axes, x.rank() + (*axes)->size());
    if (!inserted)
        return inserted.takeError();
    Shape shape;
    std::size_t next = 0;
    for (const bool one : *inserted)
        shape.push_back(one ? 1 : x.dim(next++));
    ctx.setOutput(0, x.reshaped(shape));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
