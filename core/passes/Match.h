// Read-only helpers patterns match with: producers, single uses, constants and attributes.
#pragma once

#include "ir/Model.h"
#include "runtime/Tensor.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::passes {

/// A standard-domain (ai.onnx) node of type `opType`.
bool isOp(const ir::Node &node, std::string_view opType);
/// The live node producing `value` when it is a standard `opType` node (any op when empty), else nullptr.
const ir::Node *producerOf(const ir::Model &model, ir::ValueId value, std::string_view opType = {});
/// `value` is listed among its graph's outputs.
bool isGraphOutput(const ir::Model &model, ir::ValueId value);
/// `value` is a graph input (of any graph), so its contents are not known before a run.
bool isGraphInput(const ir::Model &model, ir::ValueId value);
/// Exactly one node reads `value` and it is not a graph output (so a fusion may swallow it).
bool hasSingleUse(const ir::Model &model, ir::ValueId value);
/// The nodes reading `value`, once each, in use order.
std::vector<ir::NodeId> consumersOf(const ir::Model &model, ir::ValueId value);

/// The contents of `value` when they are fixed: an initializer that is not also a graph input, or
/// the output of a Constant node. nullopt otherwise (or when the data cannot be read).
std::optional<runtime::Tensor> constantValue(const ir::Model &model, ir::ValueId value);
/// A constant with exactly one element, as a double.
std::optional<double> scalarConstant(const ir::Model &model, ir::ValueId value);

/// Attribute accessors with the spec's default when absent.
std::int64_t attrInt(const ir::Node &node, const std::string &name, std::int64_t fallback);
float attrFloat(const ir::Node &node, const std::string &name, float fallback);
std::string attrString(const ir::Node &node, const std::string &name, const std::string &fallback);
std::vector<std::int64_t> attrInts(const ir::Node &node, const std::string &name);
std::vector<float> attrFloats(const ir::Node &node, const std::string &name);

/// Attribute builders.
onnx::AttributeProto makeAttribute(const std::string &name, std::int64_t value);
onnx::AttributeProto makeAttribute(const std::string &name, float value);
onnx::AttributeProto makeAttribute(const std::string &name, const std::string &value);
onnx::AttributeProto makeAttribute(const std::string &name, const std::vector<std::int64_t> &values);
onnx::AttributeProto makeAttribute(const std::string &name, const std::vector<float> &values);

/// Opset of the standard domain the model imports (0 when none).
int standardOpset(const ir::Model &model);
/// Ensures the model imports `domain` (at `version` when added).
void importDomain(ir::Model &model, const std::string &domain, int version);

/// Static dims of a value's declared tensor type, nullopt when any is unknown or symbolic.
std::optional<std::vector<std::int64_t>> staticShape(const ir::Model &model, ir::ValueId value);
/// Declared element type of a value (0 when unknown).
int elementTypeOf(const ir::Model &model, ir::ValueId value);

/// Graphs a pass should visit: the main graph and every subgraph whose owner node is alive.
std::vector<ir::GraphId> liveGraphs(const ir::Model &model);
/// Snapshot of a graph's live node ids in file order (safe to iterate while rewriting).
std::vector<ir::NodeId> liveNodes(const ir::Model &model, ir::GraphId graph);

} // namespace portolan::passes
