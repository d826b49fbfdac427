// The CUDA executor as the plugged executor "cuda" (see CudaRegistration.h).
#include "runtime/cuda/CudaRegistration.h"

#include "runtime/ExecutorRegistry.h"
#include "runtime/cuda/CudaDevices.h"
#include "runtime/cuda/CudaExecutor.h"

#include <cstdio>

namespace portolan::runtime::cuda {

namespace {

class Plugged final : public Executor {
public:
    explicit Plugged(std::unique_ptr<CudaExecutor> executor) : m_executor(std::move(executor)) {}
    void setProfiling(bool on) override { m_executor->setProfiling(on); }
    std::optional<AcceleratorProfile> acceleratorProfile(bool withPeaks) const override { return m_executor->lastPlan(withPeaks); }
    support::Status checkSupported() const override { return support::Status::ok(); } // create() refused what it cannot run
    support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options) override
    {
        return m_executor->run(feeds, options);
    }

private:
    std::unique_ptr<CudaExecutor> m_executor;
};

support::Expected<std::unique_ptr<Executor>> makePlugged(const ir::Model &model, const PluggedOptions &options)
{
    const PrecisionPolicy &policy = options.policy;
    auto executor = CudaExecutor::create(model, {options.allowFallback, precisionName(policy.precision), policy.keepFp32,
                                                 policy.calibration});
    if (!executor)
        return executor.takeError();
    return std::unique_ptr<Executor>(std::make_unique<Plugged>(std::move(*executor)));
}

/// "built (runtime 13.0, driver 13.0); PROBLEM" and a line per GPU.
std::string describeCuda()
{
    const auto cuda = queryCudaDevices();
    char line[256];
    std::snprintf(line, sizeof line, "built (runtime %d.%d", cuda.runtimeVersion / 1000, cuda.runtimeVersion % 1000 / 10);
    std::string text = line;
    if (cuda.driverVersion) {
        std::snprintf(line, sizeof line, ", driver %d.%d", cuda.driverVersion / 1000, cuda.driverVersion % 1000 / 10);
        text += line;
    }
    text += ")";
    if (!cuda.problem.empty())
        text += "; " + cuda.problem;
    for (const auto &d : cuda.devices) {
        std::snprintf(line, sizeof line, "\n    GPU %d: %s, sm_%d%d, %.1f GiB, %d SMs", d.index, d.name.c_str(), d.computeMajor,
                      d.computeMinor, static_cast<double>(d.memoryBytes) / (1 << 30), d.multiprocessors);
        text += line;
    }
    return text;
}

} // namespace

void registerCudaExecutor()
{
    registerExecutor("cuda", &makePlugged, &describeCuda);
}

} // namespace portolan::runtime::cuda
