// What comparing every shared tensor costs: the reference interpreter (model as loaded) against the
// compiled CPU executor (after -O2), plainly and through compare::compareRuns, on the same feeds: the
// best of 15 rounds, each measurement taking its turn in every round. Prints the ratio (target: at
// most 1.3x) and the tensors held.
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

constexpr int kRounds = 15;

template <typename F>
double secondsOf(F &&f)
{
    const auto start = std::chrono::steady_clock::now();
    if (!f())
        return 1e30;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Sees every node's outputs, as the comparison does, and keeps none: B's cost of handing out its
/// tensors without the metrics.
class SilentObserver final : public runtime::RunObserver {
public:
    void nodeFinished(const ir::Node &, std::span<const runtime::RuntimeValue>) override {}
    bool keepsOutputs() const override { return false; }
    bool readsPhysicalLayouts() const override { return true; }
    void nodeFinishedInLayouts(const ir::Node &, std::span<const runtime::RuntimeValue>,
                               std::span<const runtime::PhysicalLayout *const>) override {}
};

/// Best of at least five runs of f (10^8 elements in all), in seconds.
template <typename F>
double bestTime(std::int64_t n, F &&f)
{
    double best = 1e30;
    for (std::int64_t i = 0; i < std::max<std::int64_t>(5, 100'000'000 / n); ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

/// compareTensors on two float tensors of `n` elements (normal values, errors of 1e-3 of them), in
/// ns per element: row-major, and with the actual one channel-last (96 channels), as the compiled
/// executor hands its blocked tensors over.
int benchMetrics(std::int64_t n)
{
    constexpr std::int64_t kChannels = 96;
    n = std::max<std::int64_t>(1, n / kChannels) * kChannels;
    std::vector<float> ref(static_cast<std::size_t>(n)), act(static_cast<std::size_t>(n));
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = normal(rng);
        act[i] = ref[i] * (1 + 1e-3f * normal(rng));
    }
    const runtime::Shape shape{1, kChannels, n / kChannels};
    const auto reference = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, shape, ref);
    const auto actual = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, shape, act);
    runtime::PhysicalLayout channelLast;
    channelLast.dims = {{n / kChannels, 1}, {kChannels, n / kChannels}};
    std::vector<float> transposed(act.size());
    for (std::int64_t k = 0; k < n; ++k)
        transposed[static_cast<std::size_t>(k)] = act[static_cast<std::size_t>(channelLast.rowMajorIndexOf(k))];
    const auto actualChannelLast = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, shape, transposed);
    bool same = true;
    const double rowMajor = bestTime(n, [&] { same = same && compare::compareTensors(reference, actual, {}).elements == n; });
    const auto inLayout = compare::compareTensors(reference, actualChannelLast, {}, false, 1e-8, &channelLast);
    const double layout = bestTime(n, [&] { compare::compareTensors(reference, actualChannelLast, {}, false, 1e-8, &channelLast); });
    const double reordered = bestTime(n, [&] { compare::compareTensors(reference, runtime::rowMajorOf(actualChannelLast, channelLast), {}); });
    if (!same || inLayout.maxAbs != compare::compareTensors(reference, actual, {}).maxAbs)
        return 2;
    const double perElement = 1e9 / static_cast<double>(n);
    std::printf("compareTensors, %lld elements: row-major %.3f ms (%.2f ns per element); channel-last in place %.3f ms "
                "(%.2f ns), after a reorder %.3f ms (%.2f ns)\n",
                static_cast<long long>(n), rowMajor * 1e3, rowMajor * perElement, layout * 1e3, layout * perElement,
                reordered * 1e3, reordered * perElement);
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

    // the four measurements take turns, round after round, so that a slow spell of a shared machine
    // does not fall on one of them alone
    SilentObserver silent;
    runtime::RunOptions observed;
    observed.observer = &silent;
    support::Expected<compare::ComparisonResult> last = support::makeError("none", "not run");
    double plainA = 1e30, plainB = 1e30, observedB = 1e30, compared = 1e30, keepingA = 1e30, comparingB = 1e30;
    for (int round = 0; round < kRounds; ++round) {
        plainA = std::min(plainA, secondsOf([&] { return a.run(*feeds, {}).hasValue(); }));
        plainB = std::min(plainB, secondsOf([&] { return b.run(*feeds, {}).hasValue(); }));
        observedB = std::min(observedB, secondsOf([&] { return b.run(*feeds, observed).hasValue(); }));
        compared = std::min(compared, secondsOf([&] {
                                last = compare::compareRuns(a, b, alignment, *feeds, options);
                                return last.hasValue();
                            }));
        if (!last) {
            std::fprintf(stderr, "%s\n", last.error().format().c_str());
            return 2;
        }
        keepingA = std::min(keepingA, last->secondsA);
        comparingB = std::min(comparingB, last->secondsB);
    }
    const double plain = plainA + plainB;
    std::int64_t elements = 0;
    for (const compare::ComparedTensor &t : last->tensors)
        elements += t.metrics.elements;
    std::printf("%s: two runs %.3f s, compared %.3f s (%zu tensors, %.1f M elements): %.2fx; held %.1f MiB at most, spilled %.1f MiB\n",
                argv[1], plain, compared, last->tensors.size(), static_cast<double>(elements) / 1e6, compared / plain, static_cast<double>(last->peakHeldBytes) / (1 << 20),
                static_cast<double>(last->spilledBytes) / (1 << 20));
    std::printf("  run A %.3f s plain, %.3f s keeping its tensors; run B %.3f s plain, %.3f s observed without metrics, "
                "%.3f s comparing\n",
                plainA, keepingA, plainB, observedB, comparingB);
    return 0;
}
