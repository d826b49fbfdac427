// FLOP counts per op family; see Flops.h for what is counted.
#include "analysis/Flops.h"

#include <numeric>
#include <string_view>

namespace portolan::analysis {

namespace {

std::int64_t product(const Dims &dims, std::size_t from = 0, std::size_t to = SIZE_MAX)
{
    std::int64_t n = 1;
    for (std::size_t i = from; i < dims.size() && i < to; ++i)
        n *= dims[i];
    return n;
}

std::int64_t intAttribute(const ir::Node &node, std::string_view name, std::int64_t fallback)
{
    for (const ir::Attribute &a : node.attributes)
        if (a.name() == name)
            return a.proto.i();
    return fallback;
}

bool sequenceFirst(const ir::Node &node)
{
    for (const ir::Attribute &a : node.attributes)
        if (a.name() == "layout")
            return a.proto.s() == "SND";
    return false;
}

} // namespace

std::int64_t nodeFlops(const ir::Node &node, std::span<const Dims> inputs, std::span<const Dims> outputs)
{
    if (inputs.size() < 2 || outputs.empty() || inputs[0].empty() || inputs[1].empty() || outputs[0].empty())
        return 0;
    const std::string &op = node.opType;
    const bool standard = node.domain.empty(), portolan = node.domain == "ai.portolan";
    if ((standard && op == "Conv") || (portolan && op == "FusedConv")) {
        // each output element sums C/group · kernel products
        const Dims &w = inputs[1];
        return 2 * product(outputs[0]) * product(w, 1);
    }
    if ((standard && op == "ConvTranspose")) {
        // each input element scatters into M/group · kernel outputs
        const Dims &w = inputs[1];
        return 2 * product(inputs[0]) * product(w, 1);
    }
    if ((standard && op == "MatMul") || (portolan && op == "FusedMatMul")) {
        const std::int64_t k = inputs[0].back();
        return 2 * product(outputs[0]) * k;
    }
    if ((standard && op == "Gemm") || (portolan && op == "FusedGemm")) {
        const Dims &a = inputs[0];
        const std::int64_t k = intAttribute(node, "transA", 0) ? a.front() : a.back();
        return 2 * product(outputs[0]) * k;
    }
    if (portolan && op == "Attention" && inputs.size() >= 3 && inputs[0].size() >= 2 && inputs[1].size() >= 3) {
        // Q·Kᵀ: every query element meets every key position; P·V: every output element too
        const Dims &k = inputs[1];
        const std::int64_t keys = sequenceFirst(node) ? k[k.size() - 3] : k[k.size() - 2];
        return 2 * keys * (product(inputs[0]) + product(outputs[0]));
    }
    return 0;
}

} // namespace portolan::analysis
