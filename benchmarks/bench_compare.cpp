// What comparing every shared tensor costs: the reference interpreter (model as loaded) against the
// compiled CPU executor (after -O2), once plainly and once through compare::compareRuns, best of
// three each, on the same feeds. Prints the ratio (target: at most 1.3x) and the tensors held.
// Usage: bench_compare MODEL.onnx INPUT_DIR [budget MiB]
//        bench_compare --metrics ELEMENTS   (compare::compareTensors alone, ns per element)
#include "compare/RunComparison.h"
#include "compare/TensorMetrics.h"
#include "ir/ModelLoader.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace portolan;

namespace {

template <typename F>
double bestOf7(F &&f)
{
    double best = 1e30;
    for (int i = 0; i < 7; ++i) {
        const auto start = std::chrono::steady_clock::now();
        if (!f())
            return -1;
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

/// Sees every node's outputs and keeps none: B's cost of handing out its tensors (layout reorders
/// included) without the metrics.
class SilentObserver final : public runtime::RunObserver {
public:
    void nodeFinished(const ir::Node &, std::span<const runtime::RuntimeValue>) override {}
    bool keepsOutputs() const override { return false; }
};

/// compareTensors on two float tensors of `n` elements (normal values, errors of 1e-3 of them),
/// best of at least five (10^8 elements in all), in ns per element.
int benchMetrics(std::int64_t n)
{
    std::vector<float> ref(static_cast<std::size_t>(n)), act(static_cast<std::size_t>(n));
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = normal(rng);
        act[i] = ref[i] * (1 + 1e-3f * normal(rng));
    }
    const auto reference = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, {n}, ref);
    const auto actual = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, {n}, act);
    double best = 1e30;
    for (std::int64_t i = 0; i < std::max<std::int64_t>(5, 100'000'000 / n); ++i) {
        const auto start = std::chrono::steady_clock::now();
        const auto m = compare::compareTensors(reference, actual, {});
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (m.elements != n)
            return 2;
    }
    std::printf("compareTensors, %lld elements: %.3f ms, %.2f ns per element\n", static_cast<long long>(n), best * 1e3,
                best * 1e9 / static_cast<double>(n));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::string(argv[1]) == "--metrics")
        return benchMetrics(std::atoll(argv[2]));
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_compare MODEL.onnx INPUT_DIR [budget MiB]\n");
        return 2;
    }
    auto loaded = ir::loadModelFile(argv[1]);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().format().c_str());
        return 2;
    }
    const ir::Model &model = *loaded->model;
    auto optimized = passes::runPipeline(model, *passes::presetPipeline(2), {});
    auto feeds = runtime::readTestDataInputs(model, argv[2]);
    if (!optimized || !feeds) {
        std::fprintf(stderr, "%s\n", (optimized ? feeds.error() : optimized.error()).format().c_str());
        return 2;
    }
    runtime::Interpreter interpreter(model);
    runtime::cpu::CpuExecutor cpu(*optimized->model);
    if (!cpu.run(*feeds)) // compile outside the timing, as both measurements reuse the profile
        return 2;
    const compare::RunSide a{"reference", &model, [&](const auto &f, const auto &o) { return interpreter.run(f, o); }};
    const compare::RunSide b{"cpu", optimized->model.get(), [&](const auto &f, const auto &o) { return cpu.run(f, o); }};
    const compare::Alignment alignment = compare::alignByProvenance(model, *optimized->model, optimized->provenance);
    compare::ComparisonOptions options;
    if (argc > 3)
        options.memoryBudget = static_cast<std::size_t>(std::atof(argv[3]) * (1 << 20));

    const double plainA = bestOf7([&] { return a.run(*feeds, {}).hasValue(); });
    const double plainB = bestOf7([&] { return b.run(*feeds, {}).hasValue(); });
    const double plain = plainA + plainB;
    SilentObserver silent;
    runtime::RunOptions observed;
    observed.observer = &silent;
    const double observedB = bestOf7([&] { return b.run(*feeds, observed).hasValue(); });
    support::Expected<compare::ComparisonResult> last = support::makeError("none", "not run");
    const double compared = bestOf7([&] {
        last = compare::compareRuns(a, b, alignment, *feeds, options);
        return last.hasValue();
    });
    if (!last) {
        std::fprintf(stderr, "%s\n", last.error().format().c_str());
        return 2;
    }
    std::int64_t elements = 0;
    for (const compare::ComparedTensor &t : last->tensors)
        elements += t.metrics.elements;
    std::printf("%s: two runs %.3f s, compared %.3f s (%zu tensors, %.1f M elements): %.2fx; held %.1f MiB at most, spilled %.1f MiB\n",
                argv[1], plain, compared, last->tensors.size(), static_cast<double>(elements) / 1e6, compared / plain, static_cast<double>(last->peakHeldBytes) / (1 << 20),
                static_cast<double>(last->spilledBytes) / (1 << 20));
    std::printf("  run A %.3f s plain, %.3f s keeping its tensors; run B %.3f s plain, %.3f s observed without metrics, "
                "%.3f s comparing (last comparison)\n",
                plainA, last->secondsA, plainB, observedB, last->secondsB);
    return 0;
}
