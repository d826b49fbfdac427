// The CUDA executor's front: the device set up once, feeds checked as the reference interpreter
// checks them, shape plans keyed by the feeds' shapes (see CudaExecutor.h).
#include "runtime/cuda/CudaExecutor.h"

#include "analysis/ModelValidation.h"
#include "runtime/reference/ModelConstants.h"
#include "runtime/ShapeKey.h"
#include "runtime/cuda/CudaDevices.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/CudaShapePlan.h"
#include "runtime/cuda/DevicePeaks.h"

namespace portolan::runtime::cuda {

using support::makeError;

support::Expected<std::unique_ptr<CudaExecutor>> CudaExecutor::create(const ir::Model &model, CudaExecutorOptions options)
{
    if (options.precision != "fp32" && options.precision != "fp16" && options.precision != "bf16" && options.precision != "int8")
        return makeError("unsupported", "the CUDA executor runs at fp32, fp16, bf16 or int8, not " + options.precision, model.sourcePath);
    if (options.precision == "int8" && !options.calibration)
        return makeError("not-calibrated", "the CUDA executor's int8 needs a calibration table (the activation ranges)", model.sourcePath);
    if (auto gate = analysis::executionGate(model); !gate)
        return gate.error();
    const CudaDeviceQuery query = queryCudaDevices();
    if (!query.problem.empty())
        return makeError("no-gpu", "the CUDA executor needs a GPU: " + query.problem, model.sourcePath);
    try {
        auto device = std::make_unique<DeviceState>();
        return std::unique_ptr<CudaExecutor>(new CudaExecutor(model, std::move(options), std::move(device), query.devices.front().name));
    } catch (const CudaError &e) {
        return makeError("no-gpu", std::string("the CUDA executor could not set up ") + query.devices.front().name + ": " + e.what(),
                         model.sourcePath);
    }
}

CudaExecutor::CudaExecutor(const ir::Model &model, CudaExecutorOptions options, std::unique_ptr<DeviceState> device,
                           std::string deviceName)
    : m_model(model), m_options(std::move(options)), m_device(std::move(device)), m_deviceName(std::move(deviceName)),
      m_reference(model)
{
    m_constants = collectConstants(model, m_reference).tensors;
}

CudaExecutor::~CudaExecutor()
{
    m_plans.clear(); // before the device state they enqueue on
    m_device.reset();
}

support::Expected<NamedValues> CudaExecutor::run(const NamedValues &feeds, const RunOptions &options)
{
    auto bound = bindFeeds(m_model, feeds, options.checkInputShapes);
    if (!bound)
        return bound.takeError();
    const ShapeKey key = shapeKeyOf(m_model, *bound);
    auto it = m_plans.find(key.signature);
    if (it == m_plans.end()) {
        auto compiled = CudaShapePlan::compile(m_model, key.shapes, m_constants, m_options, *m_device);
        if (!compiled)
            return compiled.takeError();
        it = m_plans.emplace(key.signature, std::move(*compiled)).first;
    }
    CudaShapePlan *profile = it->second.get();
    m_last = profile;
    return profile->run(*bound, options, m_reference, m_profiling);
}

std::vector<CudaNodeProfile> CudaExecutor::lastNodes() const
{
    return m_last ? m_last->nodes() : std::vector<CudaNodeProfile>{};
}

TransferFigures CudaExecutor::lastTransfers() const
{
    return m_last ? m_last->transfers() : TransferFigures{};
}

bool CudaExecutor::lastRunWasGraph() const
{
    return m_last && m_last->lastRunWasGraph();
}

std::string CudaExecutor::whyNoGraph() const
{
    return m_last ? m_last->whyNoGraph() : std::string();
}

std::size_t CudaExecutor::arenaBytes() const
{
    return m_last ? m_last->memoryPlan().arenaBytes : 0;
}

std::size_t CudaExecutor::weightBytes() const
{
    return m_last ? m_last->weightBytes() : 0;
}

AcceleratorProfile CudaExecutor::lastPlan(bool withPeaks) const
{
    AcceleratorProfile p;
    p.device = m_deviceName;
    p.precision = m_options.precision;
    p.arenaBytes = arenaBytes();
    p.weightBytes = weightBytes();
    const TransferFigures t = lastTransfers();
    p.uploads = t.uploads;
    p.uploadBytes = t.uploadBytes;
    p.downloads = t.downloads;
    p.downloadBytes = t.downloadBytes;
    p.graphReplay = lastRunWasGraph();
    p.whyNoGraph = whyNoGraph();
    for (const CudaNodeProfile &n : lastNodes())
        p.nodes.push_back({n.name, n.opType, n.implementation, n.whyFallback, n.precision, n.whyPrecision,
                           n.runs ? n.milliseconds / static_cast<double>(n.runs) : 0.0, n.bytes, n.flops});
    if (withPeaks) {
        if (const auto peaks = measureDevicePeaks(m_options.precision)) {
            p.copyBytesPerSecond = peaks->copyBytesPerSecond;
            p.memoryBytesPerSecond = peaks->memoryBytesPerSecond;
            p.matmulFlopsPerSecond = peaks->matmulFlopsPerSecond;
        } else {
            p.whyNoPeaks = peaks.error().format();
        }
    }
    return p;
}

} // namespace portolan::runtime::cuda
