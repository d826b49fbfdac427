// NonMaxSuppression: greedy per batch and class, boxes taken by descending score (ties keep the lower
// index), dropping those whose IoU with a kept box exceeds iou_threshold.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

namespace {

struct Box {
    double y1, x1, y2, x2; // y1 <= y2, x1 <= x2
    double area() const { return (y2 - y1) * (x2 - x1); }
};

double intersectionOverUnion(const Box &a, const Box &b)
{
    const double h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
    const double w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (h <= 0 || w <= 0)
        return 0.0;
    const double intersection = h * w;
    const double unite = a.area() + b.area() - intersection;
    return unite > 0 ? intersection / unite : 0.0;
}

} // namespace

support::Status nonMaxSuppression(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &boxesIn = ctx.input(0), &scoresIn = ctx.input(1);
    if (boxesIn.rank() != 3 || boxesIn.dim(2) != 4)
        return ctx.error("boxes must be [num_batches, spatial_dimension, 4]");
    if (scoresIn.rank() != 3 || scoresIn.dim(0) != boxesIn.dim(0) || scoresIn.dim(2) != boxesIn.dim(1))
        return ctx.error("scores must be [num_batches, num_classes, spatial_dimension] matching the boxes");
    std::int64_t maxPerClass = 0;
    double iouThreshold = 0, scoreThreshold = 0;
    const bool hasScoreThreshold = ctx.hasInput(4);
    if (ctx.hasInput(2) && ctx.input(2).size() > 0) {
        auto m = scalarInteger(ctx, ctx.input(2), "max_output_boxes_per_class");
        if (!m)
            return m.takeError();
        maxPerClass = std::max<std::int64_t>(*m, 0);
    }
    if (ctx.hasInput(3) && ctx.input(3).size() > 0) {
        auto t = scalarNumber(ctx, ctx.input(3), "iou_threshold");
        if (!t)
            return t.takeError();
        iouThreshold = *t;
    }
    if (hasScoreThreshold) {
        auto t = scalarNumber(ctx, ctx.input(4), "score_threshold");
        if (!t)
            return t.takeError();
        scoreThreshold = *t;
    }
    const std::int64_t centerPointBox = ctx.attrInt("center_point_box", 0);
    if (centerPointBox != 0 && centerPointBox != 1)
        return ctx.error("center_point_box must be 0 or 1");
    auto boxesD = toDouble(ctx, boxesIn);
    auto scoresD = toDouble(ctx, scoresIn);
    if (!boxesD)
        return boxesD.takeError();
    if (!scoresD)
        return scoresD.takeError();

    const std::int64_t batches = boxesIn.dim(0), classes = scoresIn.dim(1), count = boxesIn.dim(1);
    std::vector<Box> boxes(static_cast<std::size_t>(count));
    std::vector<std::int64_t> order, kept, selected; // selected: (batch, class, box) triples
    for (std::int64_t b = 0; b < batches; ++b) {
        const double *raw = boxesD->data<double>() + b * count * 4;
        for (std::int64_t i = 0; i < count; ++i) {
            const double *v = raw + i * 4;
            if (centerPointBox) // [x_center, y_center, width, height]
                boxes[i] = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
            else // [y1, x1, y2, x2], either diagonal
                boxes[i] = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
        }
        for (std::int64_t c = 0; c < classes && maxPerClass > 0; ++c) {
            const double *score = scoresD->data<double>() + (b * classes + c) * count;
            order.clear();
            for (std::int64_t i = 0; i < count; ++i)
                if (!hasScoreThreshold || score[i] > scoreThreshold)
                    order.push_back(i);
            // NaN scores rank lowest (and keep the ordering strict-weak)
            auto rank = [&](std::int64_t i) { return std::isnan(score[i]) ? -std::numeric_limits<double>::infinity() : score[i]; };
            std::stable_sort(order.begin(), order.end(), [&](std::int64_t l, std::int64_t r) { return rank(l) > rank(r); });
            kept.clear();
            for (const std::int64_t i : order) {
                if (static_cast<std::int64_t>(kept.size()) >= maxPerClass)
                    break;
                const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](std::int64_t k) {
                    return intersectionOverUnion(boxes[i], boxes[k]) > iouThreshold;
                });
                if (!suppressed)
                    kept.push_back(i);
            }
            for (const std::int64_t i : kept)
                selected.insert(selected.end(), {b, c, i});
        }
    }
    auto out = ctx.allocate(TensorProto::INT64, {static_cast<std::int64_t>(selected.size() / 3), 3});
    if (!out)
        return out.takeError();
    std::copy(selected.begin(), selected.end(), out->mutableData<std::int64_t>());
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
