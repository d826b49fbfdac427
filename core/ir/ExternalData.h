// Resolves a TensorProto's external data against the model's folder, refusing paths that escape it.
#pragma once

#include "ir/Value.h"
#include "support/Expected.h"

#include <map>
#include <memory>
#include <string>

namespace portolan::ir {

/// Maps each external data file once, however many tensors it holds.
class ExternalDataResolver {
public:
    explicit ExternalDataResolver(std::string baseDir) : m_baseDir(std::move(baseDir)) {}

    /// Fills `initializer.file` and `initializer.external` for a tensor whose data_location is EXTERNAL.
    support::Status resolve(Initializer &initializer);

private:
    support::Expected<std::shared_ptr<const support::MappedFile>> mapInsideBase(const std::string &location);

    std::string m_baseDir;
    std::string m_realBase;
    std::map<std::string, std::shared_ptr<const support::MappedFile>> m_files;
};

} // namespace portolan::ir
