// Another runtime's tensors as a run to compare: a folder of TensorProto `.pb` files (each named
// inside, as `portolan run --dump-all` and ONNX's test layout write them) and NumPy `.npy` files
// (named by their file name), keyed by tensor name. The imported run replays them, in the
// model's topological order, to the comparison's observer, so a TensorRT, OpenVINO or QNN dump
// is compared exactly as a live run is.
#pragma once

#include "compare/RunComparison.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct ImportedRun {
    std::string dir;
    std::unordered_map<std::string, runtime::RuntimeValue> tensors; ///< by tensor name
    std::vector<std::string> unknownNames; ///< files whose tensor names no value of the model has
};

/// Reads every `.pb` and `.npy` file of `dir` (not recursively); errors name the file.
support::Expected<ImportedRun> readImportedRun(const std::string &dir, const ir::Model &model);

/// A tensor from a NumPy `.npy` file (format 1.0–3.0, little-endian, C order).
support::Expected<runtime::Tensor> readNpyFile(const std::string &path);

/// The imported tensors as a run of `model` (whose value names they carry).
RunSide importedSide(const ir::Model &model, std::shared_ptr<const ImportedRun> run);

} // namespace portolan::compare
