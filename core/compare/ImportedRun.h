// Another runtime's tensors as a run to compare, keyed by tensor name: a folder of TensorProto
// `.pb` files (each named inside, as `portolan run --dump-all` and ONNX's test layout write them)
// and NumPy `.npy` files (named by their file name, %-escapes decoded), a NumPy `.npz` archive, or
// Polygraphy's saved run results (`--save-outputs FILE.json`, one runner's first iteration). The imported run replays them, in the
// model's topological order, to the comparison's observer, so a TensorRT, OpenVINO or QNN dump
// is compared exactly as a live run is.
#pragma once

#include "compare/RunComparison.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct ImportedRun {
    std::string dir;  ///< where it came from (a .json's with its runner: FILE#RUNNER)
    std::unordered_map<std::string, runtime::RuntimeValue> tensors; ///< by tensor name
    std::vector<std::string> unknownNames; ///< files whose tensor names no value of the model has
};

/// Reads `source`: a folder (every `.pb` and `.npy` file, not recursively), `FILE.npz`, or
/// `FILE.json[#RUNNER]`; errors name the file.
support::Expected<ImportedRun> readImportedRun(const std::string &source, const ir::Model &model);

/// Shows `run`'s tensors to `options.observer` in `model`'s topological order, each as its node's
/// output, and returns the graph outputs among them.
support::Expected<runtime::NamedValues> replayImported(const ir::Model &model, const ImportedRun &run, const runtime::RunOptions &options);

/// The imported tensors as a run of `model` (whose value names they carry).
RunSide importedSide(const ir::Model &model, std::shared_ptr<const ImportedRun> run);

} // namespace portolan::compare
