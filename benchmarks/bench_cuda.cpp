// The CUDA executor's kernels against the device: the measured copy bandwidth, then each memory-bound
// kernel at a large size (GB/s moved and its share of the copy bandwidth; target ≥ 70%; a fused
// elementwise chain among them, made by the fuse-elementwise pass), the
// matrix products through cuBLASLt at 4096³ (TFLOP/s, or int8 TOP/s, against the best rate
// measured over the larger products here; target ≥ 70%), and the fused attention kernel's time on a BERT-base shape
// (its peer, PyTorch's scaled_dot_product_attention, is timed by benchmarks/cuda/sdpa_peer.py in
// the same gpu-check run). Every figure is the GPU time of one node (CUDA events), the median of
// the timed runs after a warm-up, through the executor's own path (one-node models, the chain's
// after its pass).
// Usage: bench_cuda [--quick]
#include "passes/NumericCheck.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/cpu/Calibration.h"
#include "runtime/cuda/CudaDevices.h"
#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DevicePeaks.h"
#include "support/TestSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace portolan;

namespace {

int g_runs = 10;

/// The GPU milliseconds of the first non-view node of `text`'s model at `precision`, median over
/// g_runs runs after one warm-up; -1 (with the reason printed) when it did not run on the GPU. The
/// kernel that ran goes to `implementation` when given.
double nodeMilliseconds(const std::string &text, const std::string &precision, std::string *implementation = nullptr,
                        const char *pipeline = nullptr)
{
    auto loaded = test::loadModelText(text.c_str());
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().format().c_str());
        return -1;
    }
    std::shared_ptr<const ir::Model> passed; // the model after `pipeline`, when one is given
    if (pipeline) {
        auto compiled = passes::runPipeline(*loaded->model, *passes::parsePipeline(pipeline), {});
        if (!compiled) {
            std::fprintf(stderr, "%s\n", compiled.error().format().c_str());
            return -1;
        }
        passed = compiled->model;
    }
    const ir::Model &model = passed ? *passed : *loaded->model;
    std::shared_ptr<const runtime::CalibrationTable> ranges; // int8: the seeded feeds', uniform in [-1, 1)
    if (precision == "int8") {
        auto table = std::make_shared<runtime::CalibrationTable>();
        for (const ir::ValueId in : model.graph(model.mainGraph()).inputs)
            table->ranges[model.value(in).name] = {1.0, 1.0};
        ranges = std::move(table);
    }
    auto created = runtime::cuda::CudaExecutor::create(model, {false, precision, {}, ranges});
    if (!created) {
        std::fprintf(stderr, "%s\n", created.error().format().c_str());
        return -1;
    }
    auto feeds = passes::seededFeeds(model, 1, {}, 3);
    if (!feeds)
        return -1;
    runtime::cuda::CudaExecutor &cuda = **created;
    if (auto warm = cuda.run(*feeds); !warm) {
        std::fprintf(stderr, "%s\n", warm.error().format().c_str());
        return -1;
    }
    cuda.setProfiling(true);
    std::vector<double> times;
    for (int i = 0; i < g_runs; ++i) {
        const double before = cuda.lastNodes().front().milliseconds;
        if (!cuda.run(*feeds))
            return -1;
        times.push_back(cuda.lastNodes().front().milliseconds - before);
    }
    std::sort(times.begin(), times.end());
    if (implementation)
        *implementation = cuda.lastNodes().front().implementation;
    return times[times.size() / 2];
}

std::string header()
{
    return "<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\n";
}

} // namespace

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    if (quick)
        g_runs = 3;
    const auto query = runtime::cuda::queryCudaDevices();
    if (!query.problem.empty()) {
        std::fprintf(stderr, "bench_cuda: no GPU: %s\n", query.problem.c_str());
        return 2;
    }
    const auto &device = query.devices.front();
    std::printf("device: %s, %d SMs, %.1f GiB, compute %d.%d\n", device.name.c_str(), device.multiprocessors,
                static_cast<double>(device.memoryBytes) / (1 << 30), device.computeMajor, device.computeMinor);
    const auto peaks = runtime::cuda::measureDevicePeaks("fp32");
    if (!peaks) {
        std::fprintf(stderr, "bench_cuda: %s\n", peaks.error().format().c_str());
        return 2;
    }
    const double copy = peaks->copyBytesPerSecond;
    std::printf("copy bandwidth (cudaMemcpy device to device, 256 MiB): %.0f GB/s (%.0f%% of the memory's %.0f GB/s on paper)\n\n",
                copy / 1e9, peaks->memoryBytesPerSecond > 0 ? 100 * copy / peaks->memoryBytesPerSecond : 0.0,
                peaks->memoryBytesPerSecond / 1e9);

    // memory-bound kernels: bytes moved = inputs read + outputs written once
    const std::int64_t n = quick ? (1 << 24) : (1 << 26), rows = n / 1024;
    const std::string vec = "[" + std::to_string(n) + "]", mat = "[" + std::to_string(rows) + ",1024]";
    struct Bound {
        const char *name;
        std::string body;
        double tensorsMoved; // in units of one n-element tensor
        const char *pipeline = nullptr; // what makes the node measured (the first)
    };
    const std::vector<Bound> bounds{
        {"Gelu", "(float" + vec + " x) => (float" + vec + " y) { y = ai.portolan.Gelu (x) }", 2},
        {"chain Mul-Add-Sigmoid-Mul", "(float" + vec + " x, float" + vec + " z) => (float" + vec +
                                          " y) { m = Mul (x, z)\n a = Add (m, x)\n s = Sigmoid (a)\n y = Mul (s, z) }",
         3, "fuse-elementwise"},
        {"Add (same shapes)", "(float" + vec + " x, float" + vec + " z) => (float" + vec + " y) { y = Add (x, z) }", 3},
        {"LayerNormalization 1024", "(float" + mat + " x, float[1024] g, float[1024] b) => (float" + mat +
                                        " y) { y = LayerNormalization (x, g, b) }", 2},
        {"Softmax 1024", "(float" + mat + " x) => (float" + mat + " y) { y = Softmax (x) }", 2},
    };
    std::printf("%-26s %-5s %10s %10s %8s  %s\n", "kernel", "type", "ms", "GB/s", "of copy", "implementation");
    for (const Bound &b : bounds)
        for (const char *precision : {"fp32", "fp16"}) {
            std::string kernel;
            const double ms = nodeMilliseconds(header() + "g " + b.body, precision, &kernel, b.pipeline);
            const double bytes = b.tensorsMoved * static_cast<double>(n) * (std::string(precision) == "fp32" ? 4 : 2);
            if (ms > 0)
                std::printf("%-26s %-5s %10.3f %10.0f %7.0f%%  %s\n", b.name, precision, ms, bytes / (ms * 1e-3) / 1e9,
                            100 * bytes / (ms * 1e-3) / copy, kernel.c_str());
            else
                std::printf("%-26s %-5s   did not run on the GPU\n", b.name, precision);
        }

    // matrix products: 2·M·N·K per product
    std::printf("\n%-26s %-5s %10s %10s %8s\n", "product", "type", "ms", "TFLOP/s", "of best");
    struct Product {
        std::int64_t size;
        const char *precision;
        double ms = 0, tflops = 0;
    };
    std::vector<Product> products;
    for (const char *precision : {"fp32", "fp16", "bf16", "int8"}) // int8: both operands quantized on the device, then dequantized
        for (const std::int64_t size : quick ? std::vector<std::int64_t>{4096} : std::vector<std::int64_t>{4096, 8192}) {
            const std::string s = std::to_string(size);
            const double ms = nodeMilliseconds(header() + "g (float[" + s + "," + s + "] a, float[" + s + "," + s + "] b) => (float[" + s +
                                                   "," + s + "] y) { y = MatMul (a, b) }",
                                               precision);
            products.push_back({size, precision, ms, ms > 0 ? 2.0 * static_cast<double>(size * size) * static_cast<double>(size) / (ms * 1e-3) / 1e12 : 0});
        }
    for (const Product &p : products) {
        double best = 0;
        for (const Product &q : products)
            if (std::strcmp(q.precision, p.precision) == 0)
                best = std::max(best, q.tflops);
        if (p.ms <= 0) {
            std::printf("MatMul %-19s %-5s   did not run on the GPU\n", (std::to_string(p.size) + "^3").c_str(), p.precision);
            continue;
        }
        std::printf("MatMul %-19s %-5s %10.3f %10.1f %7.0f%%\n", (std::to_string(p.size) + "^3").c_str(), p.precision, p.ms, p.tflops,
                    best > 0 ? 100 * p.tflops / best : 0.0);
    }

    // attention at a BERT-base shape: batch 8, 12 heads, 512 tokens, head dim 64
    std::printf("\n%-26s %-5s %10s  %s\n", "attention", "type", "ms", "kernel");
    for (const char *precision : {"fp32", "fp16", "bf16"}) {
        const std::string shape = "[8,12,512,64]";
        std::string kernel;
        const double ms = nodeMilliseconds(header() + "g (float" + shape + " q, float" + shape + " k, float" + shape +
                                               " v) => (float" + shape + " y) { y = ai.portolan.Attention <scale = 0.125> (q, k, v) }",
                                           precision, &kernel);
        if (ms > 0)
            std::printf("%-26s %-5s %10.3f  %s\n", "B8 H12 S512 D64", precision, ms, kernel.c_str());
        else
            std::printf("%-26s %-5s   did not run on the GPU\n", "B8 H12 S512 D64", precision);
    }
    return 0;
}
