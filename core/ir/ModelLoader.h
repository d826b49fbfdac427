// Loads ONNX models (file or bytes) into the IR, treating every file as hostile until checked.
#pragma once

#include "ir/Model.h"
#include "support/Expected.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace portolan::ir {

struct LoadOptions {
    /// Deepest If/Loop/Scan nesting accepted (the main graph is depth 0).
    int maxSubgraphDepth = 64;
    /// Resolve and memory-map external data (off: references are kept but not opened).
    bool loadExternalData = true;
};

/// A loaded model and the non-fatal findings made while loading it (conflicting declarations, …).
struct LoadedModel {
    std::unique_ptr<Model> model;
    support::Diagnostics warnings;
};

/// Loads `path`; external data resolves against the file's folder.
support::Expected<LoadedModel> loadModelFile(const std::string &path, const LoadOptions &options = {});

/// Loads serialized bytes. `displayName` names the model in diagnostics; `baseDir` ("" for none)
/// is where external data is looked up.
support::Expected<LoadedModel> loadModelBytes(std::span<const std::byte> bytes, const std::string &displayName,
                                              const std::string &baseDir, const LoadOptions &options = {});

/// Takes ownership of an already parsed ModelProto (consumed: its graph is moved into the IR).
support::Expected<LoadedModel> loadModelProto(onnx::ModelProto &&proto, const std::string &displayName,
                                              const std::string &baseDir, const LoadOptions &options = {});

} // namespace portolan::ir
