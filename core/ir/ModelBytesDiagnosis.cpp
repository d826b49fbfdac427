// Iterative wire-format scan: messages are visited with an explicit stack, descending only into the
// fields that can nest subgraphs (Model.graph/functions, Graph.node, Node.attribute, Attribute.g/graphs,
// Function.node), so a 10,000-deep file costs a few kilobytes of stack-free bookkeeping.
#include "ir/ModelBytesDiagnosis.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace portolan::ir {

namespace {

enum class Kind { Model, Graph, Node, Attribute, Function, Other };

// Which message a length-delimited field of `parent` holds, for the fields that lead to subgraphs.
Kind childKind(Kind parent, std::uint64_t field)
{
    switch (parent) {
    case Kind::Model: return field == 7 ? Kind::Graph : field == 25 ? Kind::Function : Kind::Other;
    case Kind::Graph: return field == 1 ? Kind::Node : Kind::Other;
    case Kind::Node: return field == 5 ? Kind::Attribute : Kind::Other;
    case Kind::Attribute: return (field == 6 || field == 11) ? Kind::Graph : Kind::Other;
    case Kind::Function: return field == 7 ? Kind::Node : Kind::Other;
    case Kind::Other: return Kind::Other;
    }
    return Kind::Other;
}

struct Reader {
    std::span<const std::byte> bytes;
    std::size_t at = 0;

    std::optional<std::uint64_t> varint(std::size_t end)
    {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64 && at < end; shift += 7) {
            const auto b = static_cast<std::uint8_t>(bytes[at++]);
            value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return value;
        }
        return std::nullopt;
    }
};

struct Frame {
    Kind kind;
    std::size_t end;
    int graphDepth; // subgraph levels above this message (the main graph is 0)
};

} // namespace

std::string diagnoseModelBytes(std::span<const std::byte> bytes, int subgraphDepthLimit)
{
    Reader r{bytes};
    std::vector<Frame> stack{{Kind::Model, bytes.size(), -1}};
    int deepest = -1;
    while (!stack.empty()) {
        Frame &frame = stack.back();
        if (r.at >= frame.end) {
            stack.pop_back();
            continue;
        }
        const std::size_t tagAt = r.at;
        const auto tag = r.varint(frame.end);
        if (!tag)
            return "the file ends inside a field tag at byte " + std::to_string(tagAt) + " of " +
                   std::to_string(bytes.size()) + ": it is truncated or not a protobuf";
        const std::uint64_t field = *tag >> 3;
        const unsigned wire = static_cast<unsigned>(*tag & 7);
        if (field == 0 || wire == 3 || wire == 4 || wire > 5)
            return "byte " + std::to_string(tagAt) + " holds no valid protobuf field (field " + std::to_string(field) +
                   ", wire type " + std::to_string(wire) + "): the file is corrupt or not an ONNX model";
        std::uint64_t skip = 0;
        if (wire == 0) {
            if (!r.varint(frame.end))
                return "the file ends inside a number at byte " + std::to_string(tagAt) + ": it is truncated";
            continue;
        }
        if (wire == 1 || wire == 5) {
            skip = wire == 1 ? 8 : 4;
        } else {
            const auto length = r.varint(frame.end);
            if (!length)
                return "the file ends inside a length at byte " + std::to_string(tagAt) + ": it is truncated";
            skip = *length;
        }
        if (skip > frame.end - r.at)
            return "field " + std::to_string(field) + " at byte " + std::to_string(tagAt) + " declares " +
                   std::to_string(skip) + " bytes but only " + std::to_string(frame.end - r.at) +
                   " remain: the file is truncated or corrupt";
        const Kind child = wire == 2 ? childKind(frame.kind, field) : Kind::Other;
        if (child == Kind::Other) {
            r.at += static_cast<std::size_t>(skip);
            continue;
        }
        const int depth = frame.graphDepth + (child == Kind::Graph ? 1 : 0);
        if (depth > deepest)
            deepest = depth;
        if (depth > subgraphDepthLimit)
            return "subgraphs nest more than " + std::to_string(subgraphDepthLimit) +
                   " levels deep (If/Loop/Scan inside one another); Portolan refuses such a file";
        stack.push_back({child, r.at + static_cast<std::size_t>(skip), depth});
    }

    // The wire format is sound: perhaps another ONNX message was given for a model.
    onnx::TensorProto tensor;
    if (tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) && tensor.data_type() != 0 &&
        (tensor.has_raw_data() || tensor.dims_size() > 0))
        return "this is a TensorProto (a tensor .pb file such as input_0.pb), not a model";
    return "the bytes are a protobuf, but not an ONNX ModelProto (a field has the wrong type)";
}

} // namespace portolan::ir
