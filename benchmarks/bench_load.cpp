// Load time and memory of a synthetic 100k-node model, against protobuf's bare parse of the same bytes
// (the floor any ONNX loader pays), measured in the same run.
#include "support/TestSupport.h"

#include "analysis/ModelSummary.h"
#include "ir/ModelLoader.h"
#include "ir/NameScopes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace portolan;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Resident set size now, from /proc (KiB).
long residentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            long kib = 0;
            status >> kib;
            return kib;
        }
        std::getline(status, key);
    }
    return 0;
}

template <typename F>
double bestOf(int repeats, F &&f)
{
    double best = 1e30;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best = std::min(best, secondsSince(start));
    }
    return best;
}

} // namespace

int main()
{
    std::printf("%-10s %10s %12s %12s %8s %12s %12s %10s\n", "nodes", "bytes", "protobuf_s", "ir_load_s", "ratio",
                "scopes_s", "summary_s", "ir_MiB");
    for (const int layers : {100, 1000}) {
        const std::string bytes = test::canonicalBytes(test::syntheticModel(layers, 100));
        const auto span = std::as_bytes(std::span(bytes.data(), bytes.size()));

        const double protobuf = bestOf(5, [&] {
            onnx::ModelProto proto;
            proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
        });
        // memory first, while the allocator holds no freed blocks of earlier loads
        const long before = residentKiB();
        auto loaded = ir::loadModelBytes(span, "synthetic", {});
        const long after = residentKiB();
        double load = 1e30;
        for (int i = 0; i < 5; ++i) { // destruction is kept out of the timing
            const auto start = std::chrono::steady_clock::now();
            auto again = ir::loadModelBytes(span, "synthetic", {});
            load = std::min(load, secondsSince(start));
        }
        if (!loaded) {
            std::fprintf(stderr, "load failed: %s\n", loaded.error().format().c_str());
            return 1;
        }
        const double scopes = bestOf(3, [&] { (void)ir::NameScopeTree::build(*loaded->model, loaded->model->mainGraph()); });
        const double summary = bestOf(3, [&] { (void)analysis::summarize(*loaded->model, {}); });
        std::printf("%-10zu %10zu %12.4f %12.4f %7.2fx %12.4f %12.4f %10.1f\n", loaded->model->liveNodeCount(),
                    bytes.size(), protobuf, load, load / protobuf, scopes, summary, (after - before) / 1024.0);
    }
    std::printf("\nratio = IR load / bare protobuf parse of the same bytes (best of 5); ir_MiB = RSS growth of one load\n");
    return 0;
}
