// Box-copy plans of the data-movement ops (see BoxCopyPlan.h).
#include "runtime/BoxCopyPlan.h"

#include "ir/Type.h"

#include <algorithm>

namespace portolan::runtime {

std::int64_t offsetOf(const std::vector<std::int64_t> &start, const std::vector<std::int64_t> &strides)
{
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < start.size(); ++d)
        offset += start[d] * strides[d];
    return offset;
}

namespace {

bool sameTypes(const NodeBinding &b, std::string &whyNot)
{
    const int type = b.inputs.at(0).dataType;
    if (type == 0 || type == onnx::TensorProto::STRING || ir::dataTypeSize(type) == 0) {
        whyNot = "not a numeric tensor";
        return false;
    }
    for (const BoundTensor &o : b.outputs)
        if (o.present && o.dataType != type) {
            whyNot = "the output type differs from the input's";
            return false;
        }
    return true;
}

std::optional<std::size_t> normalizedAxis(std::int64_t axis, std::size_t rank)
{
    if (axis < 0)
        axis += static_cast<std::int64_t>(rank);
    if (axis < 0 || axis >= static_cast<std::int64_t>(rank))
        return std::nullopt;
    return static_cast<std::size_t>(axis);
}

std::vector<std::int64_t> constantInts(const BoundTensor *t)
{
    std::vector<std::int64_t> values;
    if (!t || !t->constant.defined())
        return values;
    for (std::int64_t i = 0; i < t->constant.size(); ++i)
        values.push_back(t->constant.dataType() == onnx::TensorProto::INT32 ? t->constant.data<std::int32_t>()[i]
                                                                             : t->constant.data<std::int64_t>()[i]);
    return values;
}

std::optional<std::vector<NodeBoxCopy>> planSlice(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return std::nullopt;
    const Shape &x = b.inputs[0].shape, &y = b.outputs.at(0).shape;
    std::vector<std::int64_t> starts, axes, steps;
    if (b.opset < 10) {
        starts = b.attributes.attrInts("starts");
        axes = b.attributes.attrInts("axes");
    } else {
        for (const std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(4)})
            if (b.input(k) && !b.inputs[k].constant.defined()) {
                whyNot = "starts, axes or steps are not constants";
                return std::nullopt;
            }
        starts = constantInts(b.input(1));
        axes = constantInts(b.input(3));
        steps = constantInts(b.input(4));
    }
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()) || y.size() != x.size()) {
        whyNot = "starts, axes and steps do not line up";
        return std::nullopt;
    }
    BoxCopy copy{x, y, y, std::vector<std::int64_t>(x.size(), 0), std::vector<std::int64_t>(x.size(), 0)};
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (!steps.empty() && steps[i] != 1) {
            whyNot = "a step other than 1";
            return std::nullopt;
        }
        const auto axis = normalizedAxis(axes[i], x.size());
        if (!axis) {
            whyNot = "an axis out of range";
            return std::nullopt;
        }
        std::int64_t start = starts[i] < 0 ? starts[i] + x[*axis] : starts[i];
        start = std::clamp<std::int64_t>(start, 0, x[*axis]);
        copy.srcStart[*axis] = start;
    }
    for (std::size_t d = 0; d < x.size(); ++d)
        if (copy.srcStart[d] + y[d] > x[d]) {
            whyNot = "the slice leaves the input"; // the reference kernel reports it
            return std::nullopt;
        }
    return std::vector<NodeBoxCopy>{{0, 0, std::move(copy)}};
}


/// Split and Concat: `parts` (each with its shape, and present or not) tile `whole` along `axis`;
/// each part is one box copy, from the whole (split) or into it (concat).
std::optional<std::vector<NodeBoxCopy>> axisTiling(const Shape &whole, const std::vector<const BoundTensor *> &parts, std::int64_t axisAttribute,
                                                   bool split, std::string &whyNot)
{
    const auto axis = normalizedAxis(axisAttribute, whole.size());
    if (!axis) {
        whyNot = "the axis is out of range";
        return std::nullopt;
    }
    std::vector<NodeBoxCopy> copies;
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Shape &part = parts[k]->shape;
        if (part.size() != whole.size()) {
            whyNot = "a part's rank differs from the whole's";
            return std::nullopt;
        }
        const std::vector<std::int64_t> zeros(whole.size(), 0);
        BoxCopy copy{split ? whole : part, split ? part : whole, part, zeros, zeros};
        (split ? copy.srcStart : copy.dstStart)[*axis] = offset;
        offset += part[*axis];
        if (parts[k]->present)
            copies.push_back({split ? 0 : k, split ? k : 0, std::move(copy)});
    }
    if (offset != whole[*axis]) {
        whyNot = "the parts do not tile the axis";
        return std::nullopt;
    }
    return copies;
}

std::optional<std::vector<NodeBoxCopy>> planSplit(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return std::nullopt;
    std::vector<const BoundTensor *> parts;
    for (const BoundTensor &o : b.outputs)
        parts.push_back(&o);
    return axisTiling(b.inputs[0].shape, parts, b.attributes.attrInt("axis", 0), true, whyNot);
}

std::optional<std::vector<NodeBoxCopy>> planConcat(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return std::nullopt;
    std::vector<const BoundTensor *> parts;
    for (const BoundTensor &in : b.inputs) {
        if (in.dataType != b.inputs[0].dataType) {
            whyNot = "inputs of other types";
            return std::nullopt;
        }
        parts.push_back(&in);
    }
    return axisTiling(b.outputs.at(0).shape, parts, b.attributes.attrInt("axis", 0), false, whyNot);
}

std::optional<std::vector<NodeBoxCopy>> planGather(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !b.input(1) || !sameTypes(b, whyNot))
        return std::nullopt;
    if (!b.inputs[1].constant.defined()) {
        whyNot = "the indices are not constant (the reference kernel checks each run's bounds)";
        return std::nullopt;
    }
    const Shape &x = b.inputs[0].shape, &y = b.outputs.at(0).shape;
    const auto axis = normalizedAxis(b.attributes.attrInt("axis", 0), x.size());
    if (!axis) {
        whyNot = "the axis is out of range";
        return std::nullopt;
    }
    // y = x[:axis] + indices.shape + x[axis+1:]: one box per index, x's slab at the index to y's at its position
    const std::vector<std::int64_t> indices = constantInts(b.input(1));
    const std::size_t indexRank = b.inputs[1].shape.size();
    if (y.size() != x.size() - 1 + indexRank) {
        whyNot = "the output rank does not match";
        return std::nullopt;
    }
    Shape box(x);
    box[*axis] = 1;
    Shape yView(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(*axis)); // y with the index dims flattened
    yView.push_back(static_cast<std::int64_t>(indices.size()));
    yView.insert(yView.end(), x.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x.end());
    std::vector<NodeBoxCopy> copies;
    for (std::size_t j = 0; j < indices.size(); ++j) {
        std::int64_t index = indices[j] < 0 ? indices[j] + x[*axis] : indices[j];
        if (index < 0 || index >= x[*axis]) {
            whyNot = "an index is out of range"; // the reference kernel reports which
            return std::nullopt;
        }
        BoxCopy copy{x, yView, box, std::vector<std::int64_t>(x.size(), 0), std::vector<std::int64_t>(x.size(), 0)};
        copy.srcStart[*axis] = index;
        copy.dstStart[*axis] = static_cast<std::int64_t>(j);
        copies.push_back({0, 0, std::move(copy)});
    }
    return copies;
}

} // namespace

std::optional<std::vector<NodeBoxCopy>> planBoxCopies(const NodeBinding &binding, std::string &whyNot)
{
    const std::string &op = binding.node.opType;
    if (op == "Slice")
        return planSlice(binding, whyNot);
    if (op == "Split")
        return planSplit(binding, whyNot);
    if (op == "Concat")
        return planConcat(binding, whyNot);
    if (op == "Gather")
        return planGather(binding, whyNot);
    whyNot = op + " is not a box copy";
    return std::nullopt;
}

} // namespace portolan::runtime
