// What `portolan run` asks the workbench for and what it gets back: one executor on the open model
// (after a pipeline), timed over repeats, its outputs and, when asked, every intermediate written
// to folders, and what the executor measured of the run.
#pragma once

#include "passes/PassManager.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/Feeds.h"
#include "runtime/TensorStats.h" // what a client prints of each output
#include "runtime/cpu/CompiledGraph.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"
#include "session/SideSpec.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::session {

struct RunRequest {
    /// The reference interpreter, a compiled executor (cpu, or a plugged one such as cuda) at a
    /// precision, or another runtime run as a command on the model file (no pipeline then).
    SideSpec executor = SideSpec::reference();
    std::string pipeline = "-O0"; ///< "-O0"…"-O3" or pipeline text
    LoweringSettings lowering;    ///< compiled executors' nodes kept at fp32, int8's calibration
    bool allowFallback = true;    ///< compiled: nodes without a native kernel run on the reference's
    bool profile = false;         ///< compiled: time every node (and, on a GPU, measure the device's peaks)
    runtime::FeedSpec feeds;
    std::size_t maxMemoryBytes = 0; ///< stop before live tensors exceed it (0: half of RAM)
    int warmup = 0, repeat = 1;     ///< untimed runs, then timed ones (the first is the one observed)
    std::string outputDir;          ///< write each output as output_K.pb with manifest.json
    std::string dumpDir;            ///< write every intermediate as it is produced, with manifest.json
    bool overwrite = false;         ///< the folders may hold files already
    std::shared_ptr<std::atomic<bool>> cancel;
};

/// The compiled CPU executor's record of the run: where its time and memory went.
struct CpuRunRecord {
    std::vector<runtime::cpu::NodeProfile> nodes;
    std::uint64_t flops = 0;
    std::size_t arenaBytes = 0, naiveBytes = 0, livePeakBytes = 0, fallbackPeakBytes = 0, weightBytes = 0;
    std::size_t blockedValues = 0; ///< values kept in the convolutions' own layouts between them
    runtime::cpu::ExecutorStats stats;
    runtime::PrecisionPolicy policy;

    std::size_t fallbackCount() const;
};

struct RunOutcome {
    RunRequest request;
    std::string modelPath;
    std::string pipelineLabel; ///< the passes as run ("-O2" spelled out); "" when none ran
    runtime::NamedValues outputs;
    std::vector<double> latencies; ///< seconds of each timed run, sorted
    runtime::RunStats reference;   ///< the reference interpreter's, when it ran
    std::optional<CpuRunRecord> cpu;
    std::optional<runtime::AcceleratorProfile> accelerator; ///< a plugged executor's (the GPU's)
    std::size_t dumped = 0;        ///< intermediates written to request.dumpDir

    double medianSeconds() const { return latencies.empty() ? 0 : latencies[latencies.size() / 2]; }
};

} // namespace portolan::session
