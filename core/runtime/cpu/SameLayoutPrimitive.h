// A oneDNN primitive that maps one tensor to another of the same memory layout (eltwise, softmax):
// one kernel class for all of them, run on the executor's buffers, in place where the planner
// lets its output take its input's buffer.
#pragma once

#include "runtime/cpu/OneDnn.h"

#include <string>
#include <utility>

namespace portolan::runtime::cpu {

template <typename Primitive>
class SameLayoutPrimitive final : public CpuKernel {
public:
    /// `name` is what `--stats` shows before oneDNN's implementation: "eltwise", "softmax".
    SameLayoutPrimitive(typename Primitive::primitive_desc pd, dnnl::memory::desc desc, const char *name)
        : m_pd(std::move(pd)), m_primitive(m_pd), m_desc(desc), m_scratchpad(m_pd.scratchpad_desc(), onednn::engine()), m_name(name)
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        m_primitive.execute(onednn::stream(), {{DNNL_ARG_SRC, onednn::wrap(m_desc, *inputs[0])},
                                               {DNNL_ARG_DST, onednn::wrap(m_desc, outputs[0])},
                                               {DNNL_ARG_SCRATCHPAD, m_scratchpad}});
        onednn::stream().wait();
    }

    int inPlaceInput(std::size_t) const override { return 0; }

    std::string implementation() const override { return "onednn:" + std::string(m_name) + "(" + m_pd.impl_info_str() + ")"; }

private:
    typename Primitive::primitive_desc m_pd;
    Primitive m_primitive;
    dnnl::memory::desc m_desc;
    dnnl::memory m_scratchpad;
    const char *m_name;
};

} // namespace portolan::runtime::cpu
