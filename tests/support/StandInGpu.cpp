// The stand-in GPU executor (see StandInGpu.h).
#include "support/StandInGpu.h"

#include "runtime/ExecutorRegistry.h"
#include "runtime/cpu/CpuExecutor.h"

namespace portolan::test {

namespace {

runtime::cpu::CompileOptions optionsAt(const runtime::PrecisionPolicy &policy)
{
    runtime::cpu::CompileOptions options;
    options.precision = policy;
    return options;
}

class StandInGpu final : public runtime::Executor {
public:
    StandInGpu(const ir::Model &model, const runtime::PrecisionPolicy &policy) : m_cpu(model, optionsAt(policy)) {}
    support::Expected<runtime::NamedValues> run(const runtime::NamedValues &feeds, const runtime::RunOptions &options) override
    {
        return m_cpu.run(feeds, options);
    }
    void setProfiling(bool on) override { m_profiling = on; }
    support::Status checkSupported() const override { return m_cpu.checkSupported(); }
    std::optional<runtime::AcceleratorProfile> acceleratorProfile(bool) const override
    {
        return m_profiling ? std::optional(standInProfile()) : std::nullopt;
    }

private:
    runtime::cpu::CpuExecutor m_cpu;
    bool m_profiling = false;
};

support::Expected<std::unique_ptr<runtime::Executor>> makeStandIn(const ir::Model &model, const runtime::PluggedOptions &options)
{
    const runtime::PrecisionPolicy &policy = options.policy;
    if (policy.precision == runtime::Precision::Bf16)
        return support::makeError("unsupported", "the stand-in GPU has no bf16");
    return std::unique_ptr<runtime::Executor>(std::make_unique<StandInGpu>(model, policy));
}

} // namespace

void registerStandInGpu(const std::string &name)
{
    runtime::registerExecutor(name, &makeStandIn);
}

runtime::AcceleratorProfile standInProfile()
{
    runtime::AcceleratorProfile p;
    p.device = "Test GPU";
    p.copyBytesPerSecond = 1e12;
    p.matmulFlopsPerSecond = 1e14;
    p.arenaBytes = 3 << 20;
    p.uploadBytes = 1 << 20;
    p.nodes = {{"relu", "Relu", "cuda:relu", "", "fp32", "", 0.25, 1000000, 0},
               {"conv", "Conv", "cudnn:conv", "", "fp32", "", 2.0, 4000000, 1200000000},
               {"sin", "Sin", "cpu-fallback", "no CUDA kernel for Sin", "fp32", "", 0.5, 0, 0},
               {"flat", "Reshape", "view", "", "fp32", "", 0.0, 0, 0}};
    return p;
}

} // namespace portolan::test
