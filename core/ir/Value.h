// A value (tensor, sequence, optional…) of the IR: its declared type, its producer, its uses, its data.
#pragma once

#include "ir/Ids.h"
#include "ir/Type.h"
#include "support/MappedFile.h"

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace portolan::ir {

/// One consumer of a value: input `inputIndex` of `node`.
struct Use {
    NodeId node;
    std::uint32_t inputIndex = 0;
    bool operator==(const Use &) const = default;
};

/// Constant data of an initializer. The TensorProto is kept as loaded (so saving is lossless); for
/// external data, `external` views the memory-mapped bytes in place.
struct Initializer {
    onnx::TensorProto proto;                         ///< as in the file (raw or typed data, or an external reference)
    std::shared_ptr<const support::MappedFile> file; ///< set for external data: keeps the mapping alive
    std::span<const std::byte> external;             ///< the tensor's bytes inside `file`

    bool isExternal() const { return file != nullptr; }
    /// Bytes of raw data (raw_data or external); empty for typed-field storage.
    std::span<const std::byte> rawBytes() const;
    /// Bytes this tensor occupies: raw or external bytes, or typed-field count × element size.
    std::size_t byteSize() const;
};

struct Value {
    ValueId id;
    GraphId graph;                 ///< the graph whose scope defines it
    std::string name;              ///< ONNX name, unique within its scope
    onnx::ValueInfoProto info;     ///< declared type, doc string and unknown fields (name kept in sync on save)
    bool hasDeclaredType = false;  ///< the file declared a type (input, output or value_info)
    bool declarationOnly = false;  ///< only a value_info names it: nothing defines it

    NodeId producer;               ///< invalid for graph inputs, initializers and dangling value_info
    std::uint32_t producerOutput = 0;
    std::vector<Use> uses;
    std::shared_ptr<const Initializer> initializer; ///< shared so graph snapshots copy weights by reference

    bool isInitializer() const { return initializer != nullptr; }
    const onnx::TypeProto &type() const { return info.type(); }
    int elementType() const;
    Shape shape() const;
};

} // namespace portolan::ir
