// ONNX Runtime as a run side, `ort[:disabled|basic|extended|all]`: onnxruntime-node (pinned),
// installed on first use with npm into a cache, run by Portolan's own script (embedded in the
// binary). Per layer without breaking its fusions: ORT optimizes the model once and saves the
// result; every tensor of the model its optimized graph still computes is marked an output of a
// copy of the model, which ORT then runs at the same level, so it fuses exactly as before.
#pragma once

#include "compare/ExternalRun.h"

#include <string>

namespace portolan::compare {

inline constexpr const char *kOnnxRuntimeNodeVersion = "1.30.0";

/// disabled, basic, extended or all.
bool isOnnxRuntimeLevel(const std::string &level);

struct OnnxRuntimeInstall {
    std::string cacheDir; ///< holds node_modules/onnxruntime-node
    std::string script;   ///< Portolan's runner, written there
};

/// $PORTOLAN_ORT_CACHE, else $XDG_CACHE_HOME/portolan/onnxruntime-node-VERSION, else the same under ~/.cache.
std::string onnxRuntimeCacheDir();

/// Installs onnxruntime-node at kOnnxRuntimeNodeVersion into the cache with npm (--ignore-scripts:
/// the CPU build ships in the package) unless it is there, and writes the runner script. The
/// error says what is missing: node, npm, or the registry.
support::Expected<OnnxRuntimeInstall> installOnnxRuntime(double timeoutSeconds = 600);

/// The command that runs a model file on ONNX Runtime at `level`, outputs only (`run --executor ort`).
ExternalCommand onnxRuntimeCommand(const OnnxRuntimeInstall &install, const std::string &level, double timeoutSeconds);

/// The side over `model` (read from `modelPath`) at `level`; each run takes at most `timeoutSeconds`.
RunSide onnxRuntimeSide(const ir::Model &model, const std::string &modelPath, const std::string &level,
                        const OnnxRuntimeInstall &install, double timeoutSeconds);

} // namespace portolan::compare
