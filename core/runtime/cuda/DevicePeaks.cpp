#include "runtime/cuda/DevicePeaks.h"

#include "ir/ModelLoader.h"
#include "runtime/Feeds.h"
#include "runtime/CalibrationTable.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DeviceState.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace portolan::runtime::cuda {

namespace {

constexpr int kRepeats = 3;
constexpr std::int64_t kMatmulSize = 4096;

/// Device-to-device cudaMemcpy of `bytes`, best of kRepeats after a warm-up.
double copyBytesPerSecond(std::size_t bytes)
{
    DeviceMemory from(bytes), to(bytes);
    cudaEvent_t start = nullptr, stop = nullptr;
    checkCuda(cudaEventCreate(&start), "cudaEventCreate");
    checkCuda(cudaEventCreate(&stop), "cudaEventCreate");
    float best = 0;
    for (int i = 0; i <= kRepeats; ++i) { // the first is the warm-up
        checkCuda(cudaEventRecord(start), "cudaEventRecord");
        checkCuda(cudaMemcpy(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
        checkCuda(cudaEventRecord(stop), "cudaEventRecord");
        checkCuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        checkCuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (i > 0)
            best = best > 0 ? std::min(best, ms) : ms;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return best > 0 ? 2.0 * static_cast<double>(bytes) / (static_cast<double>(best) * 1e-3) : 0;
}

/// The device properties' memory rate: double data rate at the memory clock, over the bus width.
double memoryBytesPerSecond()
{
    int device = 0, clockKHz = 0, busBits = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
        return 0;
    return 2.0 * clockKHz * 1e3 * busBits / 8;
}

/// A one-node model: y = MatMul(a, b), all [n, n] floats.
support::Expected<ir::LoadedModel> matmulModel(std::int64_t n)
{
    onnx::ModelProto proto;
    proto.set_ir_version(8);
    proto.add_opset_import()->set_version(17);
    onnx::GraphProto &graph = *proto.mutable_graph();
    graph.set_name("device_peak");
    const auto declare = [n](onnx::ValueInfoProto &value, const char *name) {
        value.set_name(name);
        onnx::TypeProto_Tensor &type = *value.mutable_type()->mutable_tensor_type();
        type.set_elem_type(onnx::TensorProto::FLOAT);
        type.mutable_shape()->add_dim()->set_dim_value(n);
        type.mutable_shape()->add_dim()->set_dim_value(n);
    };
    declare(*graph.add_input(), "a");
    declare(*graph.add_input(), "b");
    declare(*graph.add_output(), "y");
    onnx::NodeProto &node = *graph.add_node();
    node.set_op_type("MatMul");
    node.add_input("a");
    node.add_input("b");
    node.add_output("y");
    return ir::loadModelProto(std::move(proto), "device peak (MatMul " + std::to_string(n) + "^3)", "");
}

/// FLOPs per second of the executor's MatMul at `precision`, best of kRepeats after a warm-up.
support::Expected<double> matmulFlopsPerSecond(const std::string &precision)
{
    auto loaded = matmulModel(kMatmulSize);
    if (!loaded)
        return loaded.takeError();
    const ir::Model &model = *loaded->model;
    std::shared_ptr<const CalibrationTable> ranges; // int8: the feeds' own, uniform in [-1, 1)
    if (precision == "int8") {
        auto table = std::make_shared<CalibrationTable>();
        table->ranges["a"] = table->ranges["b"] = {1.0, 1.0};
        ranges = std::move(table);
    }
    auto created = CudaExecutor::create(model, {false, precision, {}, ranges});
    if (!created)
        return created.takeError();
    CudaExecutor &cuda = **created;
    auto feeds = randomFeeds(model, kDefaultSeed);
    if (!feeds)
        return feeds.takeError();
    if (auto warm = cuda.run(*feeds); !warm)
        return warm.takeError();
    cuda.setProfiling(true);
    double best = 0, total = 0;
    for (int i = 0; i < kRepeats; ++i) {
        if (auto ran = cuda.run(*feeds); !ran)
            return ran.takeError();
        const double ms = cuda.lastNodes().front().milliseconds - total; // summed over the profiled runs
        total += ms;
        best = best > 0 ? std::min(best, ms) : ms;
    }
    const double flops = 2.0 * static_cast<double>(kMatmulSize) * static_cast<double>(kMatmulSize) * static_cast<double>(kMatmulSize);
    return best > 0 ? flops / (best * 1e-3) : 0.0;
}

} // namespace

support::Expected<DevicePeaks> measureDevicePeaks(const std::string &precision)
{
    static std::mutex mutex;
    static std::map<std::string, DevicePeaks> measured;
    const std::lock_guard lock(mutex);
    if (const auto known = measured.find(precision); known != measured.end())
        return known->second;
    DevicePeaks peaks;
    peaks.precision = precision;
    auto rate = matmulFlopsPerSecond(precision); // first: it says why when there is no GPU
    if (!rate)
        return rate.takeError();
    peaks.matmulFlopsPerSecond = *rate;
    try {
        peaks.copyBytesPerSecond = copyBytesPerSecond(std::size_t(256) << 20);
        peaks.memoryBytesPerSecond = memoryBytesPerSecond();
    } catch (const std::exception &e) {
        return support::makeError("cuda-failed", std::string("measuring the copy bandwidth: ") + e.what());
    }
    measured[precision] = peaks;
    return peaks;
}

} // namespace portolan::runtime::cuda
