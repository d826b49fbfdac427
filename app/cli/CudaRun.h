// The CUDA executor as `portolan run --executor cuda` drives it, in every build: where Portolan was
// built without nvcc, opening it says so (the only place outside portolan_cuda that knows whether
// CUDA was built).
#pragma once

#include "ir/Model.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/cpu/Precision.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"
#include "support/JsonWriter.h"

#include <memory>
#include <string>

namespace portolan::cli {

class GpuRun {
public:
    virtual ~GpuRun() = default;
    virtual support::Expected<runtime::NamedValues> run(const runtime::NamedValues &feeds, const runtime::RunOptions &options) = 0;
    /// "Ran MODEL on the CUDA executor (DEVICE) …", memory and transfers; with `withProfile` the
    /// nodes by GPU time and the fallbacks with their reasons.
    virtual void printSummary(const std::string &path, const std::string &pipeline, double seconds, bool withProfile) const = 0;
    virtual void writeJson(support::JsonWriter &w, bool withProfile) const = 0;
    /// The last run, for the port report; with the device's peaks when asked.
    virtual runtime::AcceleratorProfile profile(bool withPeaks) const = 0;
};

struct GpuRunOptions {
    std::string precision = "fp32"; ///< "fp32", "fp16", "bf16" (how floats are stored) or "int8"
    bool allowFallback = true;
    bool profiling = false;
    std::vector<runtime::cpu::KeepFp32Rule> keepFp32; ///< under fp16/bf16/int8: the nodes computed at fp32
    std::shared_ptr<const runtime::cpu::CalibrationTable> calibration; ///< int8's activation ranges
};

/// The CUDA executor on `model`, or why not (no CUDA in this build, no GPU, another precision…).
support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const GpuRunOptions &options);

} // namespace portolan::cli
