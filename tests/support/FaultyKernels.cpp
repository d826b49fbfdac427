// Faulty kernels for the comparison tests (FaultyKernels.h).
#include "support/FaultyKernels.h"

#include "runtime/cpu/CpuKernel.h"

namespace portolan::test {

using runtime::Tensor;

std::unique_ptr<runtime::cpu::CpuKernel> faultyKernel(const runtime::cpu::NodeBinding &binding, const std::string &fault,
                                                      std::string &whyNot)
{
    const auto factory = runtime::cpu::findCpuKernel(binding.node.domain, binding.node.opType, binding.opset);
    if (!factory)
        return nullptr;
    if (fault == "epsilon") {
        ir::Node node = binding.node;
        for (ir::Attribute &a : node.attributes)
            if (a.name() == "epsilon")
                a.proto.set_f(0.5f);
        static runtime::MemoryBudget budget;
        static runtime::NoSubgraphs subgraphs("a kernel is built without subgraphs");
        runtime::KernelContext attributes(binding.model, node, binding.opset, {}, budget, subgraphs);
        runtime::cpu::NodeBinding wrong{binding.model, node, binding.opset, binding.inputs, binding.outputs, attributes};
        return factory(wrong, whyNot);
    }
    runtime::cpu::NodeBinding wrong = binding;
    const Tensor &w = binding.inputs[1].constant;
    Tensor changed = w.clone();
    if (fault == "scaled-weight") {
        for (std::int64_t i = 0; i < w.size(); ++i)
            changed.mutableData<float>()[i] = w.data<float>()[i] * 1.02f;
    } else {
        const auto &s = w.shape();
        for (std::int64_t o = 0; o < s[0] * s[1]; ++o)
            for (std::int64_t i = 0; i < s[2]; ++i)
                for (std::int64_t j = 0; j < s[3]; ++j)
                    changed.mutableData<float>()[(o * s[2] + i) * s[3] + j] = w.data<float>()[(o * s[2] + j) * s[3] + i];
    }
    wrong.inputs[1].constant = changed;
    return factory(wrong, whyNot);
}

} // namespace portolan::test
