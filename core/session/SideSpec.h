// What runs the model on one side of a comparison, as a typed request field: the reference
// interpreter, a compiled executor at a precision, another runtime's saved tensors, or another
// runtime run as a command. The CLI's `--a/--b` text and the compare dock's form both become one.
#pragma once

#include "runtime/cpu/Calibration.h"
#include "runtime/Precision.h"
#include "support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::session {

struct SideSpec {
    enum class Kind { Reference, Compiled, Imported, External, OnnxRuntime };
    Kind kind = Kind::Reference;
    std::string executor = "cpu";   ///< Compiled: "cpu", or a plugged executor's name ("cuda")
    std::string precision = "fp32"; ///< Compiled: fp32, fp16, bf16 or int8
    /// Imported: a folder of .pb or .npy files, an .npz, or Polygraphy's --save-outputs .json[#RUNNER].
    std::string importFrom;
    std::string command;            ///< External: "CMD {model} {inputs} {outputs}"
    double timeoutSeconds = 600;    ///< External, OnnxRuntime: killed past this
    std::string ortLevel = "all";   ///< OnnxRuntime: its graph optimization level (disabled, basic, extended, all)

    static SideSpec reference() { return {}; }
    static SideSpec compiled(std::string executor, std::string precision);
    static SideSpec imported(std::string from);
    static SideSpec external(std::string command, double timeoutSeconds = 600);
    static SideSpec onnxRuntime(std::string level = "all");

    /// "reference", "cpu", "cpu:PRECISION", "cuda", "cuda:PRECISION", "import:PATH",
    /// "external:CMD {model} {inputs} {outputs}" or "ort[:LEVEL]"; the error lists what is accepted.
    static support::Expected<SideSpec> parse(const std::string &text);
    /// The side as parse() reads it back, and as a comparison labels its run ("cpu:fp16").
    std::string label() const;
    bool isCompiled() const { return kind == Kind::Compiled; }
};

/// How compiled sides lower precision: the nodes kept at fp32 and int8's calibration.
struct LoweringSettings {
    std::vector<runtime::KeepFp32Rule> keepFp32;
    std::string calibration = "random:8"; ///< int8: a folder of test_data_set_N, or random:N[:SEED]
    runtime::CalibrationSettings calibrationMethod; ///< int8: minmax or percentile (99.99 by default)
    std::string calibrationTable;  ///< int8: read the ranges from this file instead of calibrating
    std::string saveCalibration;   ///< int8: also write the table here
    bool overwriteCalibration = false; ///< saveCalibration may replace an existing file
};

/// The policy a compiled side at `precision` runs under, on `model` (the graph the executor runs):
/// int8 loads or calibrates its ranges (on random batches shaped by `shapes`) and saves them when
/// asked. Calibration options with another precision are an error.
support::Expected<runtime::PrecisionPolicy> resolvePrecisionPolicy(const std::string &precision, const LoweringSettings &settings,
                                                                       const ir::Model &model,
                                                                       const std::map<std::string, runtime::Shape> &shapes,
                                                                       const runtime::RunOptions &run = {});

} // namespace portolan::session
