// Says why bytes are not a loadable ModelProto (truncated where, which tag is invalid, how deep the
// subgraphs nest, whether it is a tensor file), by scanning the protobuf wire format without recursion.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace portolan::ir {

/// A sentence explaining why `bytes` fail to parse as an ONNX ModelProto; `subgraphDepthLimit` is the
/// deepest If/Loop/Scan nesting that is still reported as acceptable.
std::string diagnoseModelBytes(std::span<const std::byte> bytes, int subgraphDepthLimit);

} // namespace portolan::ir
