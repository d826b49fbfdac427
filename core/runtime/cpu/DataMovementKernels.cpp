// Slice, Split, Concat and Gather as box copies: each output (or each input, for Concat) is one
// rectangular region of the other side, copied as contiguous runs of its innermost dims. Any
// element type (shape tensors are int64); the indices and bounds of Slice and Gather must be
// constants, checked at compile time, so a run never reads out of bounds.
#include "runtime/BoxCopyPlan.h"
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/cpu/CpuKernel.h"
#include "support/ParallelFor.h"

#include "ir/Type.h"

#include <cstring>

namespace portolan::runtime::cpu {

namespace {

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
    const auto srcStrides = kernels::stridesOf(c.srcShape), dstStrides = kernels::stridesOf(c.dstShape);
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
    const std::int64_t srcBase = offsetOf(c.srcStart, srcStrides), dstBase = offsetOf(c.dstStart, dstStrides);
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

/// The node's box copies, run as memcpy runs.
std::unique_ptr<CpuKernel> boxCopyKernel(const char *name, const NodeBinding &b, std::string &whyNot)
{
    auto plan = planBoxCopies(b, whyNot);
    if (!plan)
        return nullptr;
    std::vector<BoxCopyKernel::Copy> copies;
    for (NodeBoxCopy &c : *plan)
        copies.push_back({c.input, c.output, std::move(c.box)});
    return std::make_unique<BoxCopyKernel>(name, std::move(copies), ir::dataTypeSize(b.inputs.at(0).dataType));
}

} // namespace

std::unique_ptr<CpuKernel> makeSliceKernel(const NodeBinding &b, std::string &whyNot)
{
    return boxCopyKernel("slice", b, whyNot);
}

std::unique_ptr<CpuKernel> makeSplitKernel(const NodeBinding &b, std::string &whyNot)
{
    return boxCopyKernel("split", b, whyNot);
}

std::unique_ptr<CpuKernel> makeConcatKernel(const NodeBinding &b, std::string &whyNot)
{
    return boxCopyKernel("concat", b, whyNot);
}

std::unique_ptr<CpuKernel> makeGatherKernel(const NodeBinding &b, std::string &whyNot)
{
    return boxCopyKernel("gather", b, whyNot);
}

} // namespace portolan::runtime::cpu
