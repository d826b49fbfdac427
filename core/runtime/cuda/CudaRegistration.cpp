// The CUDA executor as the plugged executor "cuda" (see CudaRegistration.h).
#include "runtime/cuda/CudaRegistration.h"

#include "runtime/ExecutorRegistry.h"
#include "runtime/cuda/CudaExecutor.h"

namespace portolan::runtime::cuda {

namespace {

class Plugged final : public PluggedExecutor {
public:
    explicit Plugged(std::unique_ptr<CudaExecutor> executor) : m_executor(std::move(executor)) {}
    void setProfiling(bool on) override { m_executor->setProfiling(on); }
    std::optional<AcceleratorProfile> lastProfile(bool withPeaks) const override { return m_executor->lastProfile(withPeaks); }
    support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options) override
    {
        return m_executor->run(feeds, options);
    }

private:
    std::unique_ptr<CudaExecutor> m_executor;
};

support::Expected<std::unique_ptr<PluggedExecutor>> makePlugged(const ir::Model &model, const PluggedOptions &options)
{
    const cpu::PrecisionPolicy &policy = options.policy;
    auto executor = CudaExecutor::create(model, {options.allowFallback, cpu::precisionName(policy.precision), policy.keepFp32,
                                                 policy.calibration});
    if (!executor)
        return executor.takeError();
    return std::unique_ptr<PluggedExecutor>(std::make_unique<Plugged>(std::move(*executor)));
}

} // namespace

void registerCudaExecutor()
{
    registerExecutor("cuda", &makePlugged);
}

} // namespace portolan::runtime::cuda
