// Pass speed at scale: -O2 on a synthetic 100k-node model, per pass, against the load time of the
// same model measured in the same run. `bench_optimize --write FILE` also saves the model so
// benchmarks/optimize_speed/run.sh can time ONNX Runtime's optimizer on the same bytes.
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace portolan;

int main(int argc, char **argv)
{
    const int layers = 1000, nodesPerLayer = 100;
    const std::string bytes = test::syntheticModel(layers, nodesPerLayer).SerializeAsString();
    if (argc == 3 && std::strcmp(argv[1], "--write") == 0)
        std::ofstream(argv[2], std::ios::binary) << bytes;

    const auto loadStart = std::chrono::steady_clock::now();
    auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", "");
    const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().format().c_str());
        return 1;
    }
    auto pipeline = passes::presetPipeline(2);
    const auto start = std::chrono::steady_clock::now();
    auto result = passes::runPipeline(*loaded->model, *pipeline, {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result) {
        std::fprintf(stderr, "%s\n", result.error().format().c_str());
        return 1;
    }
    std::printf("model: %d layers x %d nodes = %zu nodes, loaded in %.2f s\n", layers, nodesPerLayer,
                loaded->model->liveNodeCount(), loadSeconds);
    for (const passes::PassResult &p : result->passes)
        std::printf("  %-34s %9.1f ms  nodes %zu -> %zu\n", p.invocation.c_str(), p.milliseconds, p.nodesBefore, p.nodesAfter);
    std::printf("-O2: %.2f s in all = %.1fx the load time; main graph %zu -> %zu nodes\n", seconds, seconds / loadSeconds,
                result->passes.front().nodesBefore, result->passes.back().nodesAfter);
    return 0;
}
