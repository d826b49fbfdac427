// Slice, Split, Concat and Gather as box copies: each output (or each input, for Concat) is one
// rectangular region of the other side, copied as contiguous runs of its innermost dims. Any
// element type (shape tensors are int64); the indices and bounds of Slice and Gather must be
// constants, checked at compile time, so a run never reads out of bounds.
#include "runtime/cpu/CpuKernel.h"
#include "support/ParallelFor.h"

#include "ir/Type.h"

#include <cstring>

namespace portolan::runtime::cpu {

namespace {

/// A region `box` at `srcStart` of a row-major tensor of `srcShape`, copied to `dstStart` of one of `dstShape`.
struct BoxCopy {
    Shape srcShape, dstShape, box;
    std::vector<std::int64_t> srcStart, dstStart;
};

std::vector<std::int64_t> stridesOf(const Shape &shape)
{
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    return strides;
}

void copyBox(const BoxCopy &c, const std::byte *src, std::byte *dst, std::size_t elementSize)
{
    const std::size_t rank = c.box.size();
    if (rank == 0) {
        std::memcpy(dst, src, elementSize);
        return;
    }
    for (const std::int64_t d : c.box)
        if (d == 0)
            return;
    const auto srcStrides = stridesOf(c.srcShape), dstStrides = stridesOf(c.dstShape);
    // merge the trailing dims the box spans whole on both sides into one contiguous run
    std::size_t inner = rank - 1;
    std::int64_t run = c.box[inner];
    while (inner > 0 && c.box[inner] == c.srcShape[inner] && c.box[inner] == c.dstShape[inner]) {
        --inner;
        run *= c.box[inner];
    }
    std::int64_t outer = 1;
    for (std::size_t d = 0; d < inner; ++d)
        outer *= c.box[d];
    std::int64_t srcBase = 0, dstBase = 0;
    for (std::size_t d = 0; d < rank; ++d) {
        srcBase += c.srcStart[d] * srcStrides[d];
        dstBase += c.dstStart[d] * dstStrides[d];
    }
    const std::size_t runBytes = static_cast<std::size_t>(run) * elementSize;
    support::parallelFor(outer, outer * static_cast<std::int64_t>(runBytes) >= (1 << 18), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            std::int64_t rest = i, s = srcBase, t = dstBase;
            for (std::size_t d = inner; d-- > 0;) {
                const std::int64_t at = rest % c.box[d];
                rest /= c.box[d];
                s += at * srcStrides[d];
                t += at * dstStrides[d];
            }
            std::memcpy(dst + static_cast<std::size_t>(t) * elementSize, src + static_cast<std::size_t>(s) * elementSize, runBytes);
        }
    });
}

/// Runs a fixed list of box copies from inputs to outputs.
class BoxCopyKernel final : public CpuKernel {
public:
    struct Copy {
        std::size_t input, output;
        BoxCopy box;
    };
    BoxCopyKernel(std::string name, std::vector<Copy> copies, std::size_t elementSize)
        : m_name(std::move(name)), m_copies(std::move(copies)), m_elementSize(elementSize) {}

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        for (const Copy &c : m_copies)
            copyBox(c.box, inputs[c.input]->rawData(), outputs[c.output].mutableData<std::byte>(), m_elementSize);
    }

    std::string implementation() const override { return "native:" + m_name; }

private:
    std::string m_name;
    std::vector<Copy> m_copies;
    std::size_t m_elementSize;
};

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

} // namespace

std::unique_ptr<CpuKernel> makeSliceKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return nullptr;
    const Shape &x = b.inputs[0].shape, &y = b.outputs.at(0).shape;
    std::vector<std::int64_t> starts, axes, steps;
    if (b.opset < 10) {
        starts = b.attributes.attrInts("starts");
        axes = b.attributes.attrInts("axes");
    } else {
        for (const std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(4)})
            if (b.input(k) && !b.inputs[k].constant.defined()) {
                whyNot = "starts, axes or steps are not constants";
                return nullptr;
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
        return nullptr;
    }
    BoxCopy copy{x, y, y, std::vector<std::int64_t>(x.size(), 0), std::vector<std::int64_t>(x.size(), 0)};
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (!steps.empty() && steps[i] != 1) {
            whyNot = "a step other than 1";
            return nullptr;
        }
        const auto axis = normalizedAxis(axes[i], x.size());
        if (!axis) {
            whyNot = "an axis out of range";
            return nullptr;
        }
        std::int64_t start = starts[i] < 0 ? starts[i] + x[*axis] : starts[i];
        start = std::clamp<std::int64_t>(start, 0, x[*axis]);
        copy.srcStart[*axis] = start;
    }
    for (std::size_t d = 0; d < x.size(); ++d)
        if (copy.srcStart[d] + y[d] > x[d]) {
            whyNot = "the slice leaves the input"; // the reference kernel reports it
            return nullptr;
        }
    return std::make_unique<BoxCopyKernel>("slice", std::vector<BoxCopyKernel::Copy>{{0, 0, std::move(copy)}},
                                           ir::dataTypeSize(b.inputs[0].dataType));
}

namespace {

/// Split and Concat: `parts` (each with its shape, and present or not) tile `whole` along `axis`;
/// each part is one box copy, from the whole (split) or into it (concat).
std::unique_ptr<CpuKernel> axisTiling(const char *name, const Shape &whole, const std::vector<const BoundTensor *> &parts,
                                      std::int64_t axisAttribute, bool split, std::size_t elementSize, std::string &whyNot)
{
    const auto axis = normalizedAxis(axisAttribute, whole.size());
    if (!axis) {
        whyNot = "the axis is out of range";
        return nullptr;
    }
    std::vector<BoxCopyKernel::Copy> copies;
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Shape &part = parts[k]->shape;
        if (part.size() != whole.size()) {
            whyNot = "a part's rank differs from the whole's";
            return nullptr;
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
        return nullptr;
    }
    return std::make_unique<BoxCopyKernel>(name, std::move(copies), elementSize);
}

} // namespace

std::unique_ptr<CpuKernel> makeSplitKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return nullptr;
    std::vector<const BoundTensor *> parts;
    for (const BoundTensor &o : b.outputs)
        parts.push_back(&o);
    return axisTiling("split", b.inputs[0].shape, parts, b.attributes.attrInt("axis", 0), true,
                      ir::dataTypeSize(b.inputs[0].dataType), whyNot);
}

std::unique_ptr<CpuKernel> makeConcatKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !sameTypes(b, whyNot))
        return nullptr;
    std::vector<const BoundTensor *> parts;
    for (const BoundTensor &in : b.inputs) {
        if (in.dataType != b.inputs[0].dataType) {
            whyNot = "inputs of other types";
            return nullptr;
        }
        parts.push_back(&in);
    }
    return axisTiling("concat", b.outputs.at(0).shape, parts, b.attributes.attrInt("axis", 0), false,
                      ir::dataTypeSize(b.inputs[0].dataType), whyNot);
}

std::unique_ptr<CpuKernel> makeGatherKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !b.input(1) || !sameTypes(b, whyNot))
        return nullptr;
    if (!b.inputs[1].constant.defined()) {
        whyNot = "the indices are not constant (the reference kernel checks each run's bounds)";
        return nullptr;
    }
    const Shape &x = b.inputs[0].shape, &y = b.outputs.at(0).shape;
    const auto axis = normalizedAxis(b.attributes.attrInt("axis", 0), x.size());
    if (!axis) {
        whyNot = "the axis is out of range";
        return nullptr;
    }
    // y = x[:axis] + indices.shape + x[axis+1:]: one box per index, x's slab at the index to y's at its position
    const std::vector<std::int64_t> indices = constantInts(b.input(1));
    const std::size_t indexRank = b.inputs[1].shape.size();
    if (y.size() != x.size() - 1 + indexRank) {
        whyNot = "the output rank does not match";
        return nullptr;
    }
    Shape box(x);
    box[*axis] = 1;
    Shape yView(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(*axis)); // y with the index dims flattened
    yView.push_back(static_cast<std::int64_t>(indices.size()));
    yView.insert(yView.end(), x.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x.end());
    std::vector<BoxCopyKernel::Copy> copies;
    for (std::size_t j = 0; j < indices.size(); ++j) {
        std::int64_t index = indices[j] < 0 ? indices[j] + x[*axis] : indices[j];
        if (index < 0 || index >= x[*axis]) {
            whyNot = "an index is out of range"; // the reference kernel reports which
            return nullptr;
        }
        BoxCopy copy{x, yView, box, std::vector<std::int64_t>(x.size(), 0), std::vector<std::int64_t>(x.size(), 0)};
        copy.srcStart[*axis] = index;
        copy.dstStart[*axis] = static_cast<std::int64_t>(j);
        copies.push_back({0, 0, std::move(copy)});
    }
    return std::make_unique<BoxCopyKernel>("gather", std::move(copies), ir::dataTypeSize(b.inputs[0].dataType));
}

} // namespace portolan::runtime::cpu
