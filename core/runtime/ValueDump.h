// Run values written as TensorProto files into a folder with a manifest.json: a run's outputs
// (output_K.pb), or every intermediate as a run produces it (streamed, so dumping holds nothing).
#pragma once

#include "ir/Model.h"
#include "runtime/Executor.h"
#include "support/Expected.h"
#include "support/JsonWriter.h"

#include <string>

namespace portolan::runtime {

/// A folder to write into: created if missing; one that holds files is refused unless `overwrite`.
support::Status prepareOutputFolder(const std::string &dir, bool overwrite);

/// Writes `values` as DIR/output_K.pb with DIR/manifest.json (name, file, type of each).
support::Status writeOutputFolder(const NamedValues &values, const std::string &dir);

/// Writes every main-graph node output to its folder as it is produced (NNNNNN_NAME.pb), then the
/// manifest on finish().
class DumpObserver final : public RunObserver {
public:
    DumpObserver(const ir::Model &model, std::string dir);
    void nodeFinished(const ir::Node &node, std::span<const RuntimeValue> outputs) override;
    /// Writes the manifest; fails when a tensor could not be written.
    support::Status finish();
    std::size_t count() const { return m_count; }

private:
    const ir::Model &m_model;
    std::string m_dir;
    support::JsonWriter m_manifest;
    std::size_t m_count = 0;
    std::string m_error;
};

} // namespace portolan::runtime
