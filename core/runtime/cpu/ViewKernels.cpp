// Reshape, Flatten, Squeeze, Unsqueeze and Identity: the output is the input's bytes under the
// output's shape, so the executor hands the storage on and runs nothing.
#include "runtime/cpu/CpuKernel.h"

namespace portolan::runtime::cpu {

namespace {

class ViewKernel final : public CpuKernel {
public:
    void run(std::span<const Tensor *const>, std::span<Tensor>) override {}
    int aliasedInput(std::size_t) const override { return 0; }
    std::string implementation() const override { return "view"; }
};

} // namespace

std::unique_ptr<CpuKernel> makeViewKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!isSameSizeView(b, whyNot))
        return nullptr;
    return std::make_unique<ViewKernel>();
}

} // namespace portolan::runtime::cpu
