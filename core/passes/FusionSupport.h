// Helpers the linear and elementwise fusion passes share: why a value cannot be swallowed, shapes
// (declared, else ONNX-inferred once per pass), and the one rewrite they all end with: a chain of
// nodes replaced by one new node.
#pragma once

#include "analysis/ShapeInference.h"
#include "ir/Model.h"
#include "ir/Type.h"
#include "passes/Pass.h"
#include "runtime/Tensor.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::passes {

/// Why the output of `producer` (described as "Conv output") cannot be fused into its one consumer:
/// "Conv output has 2 consumers", "… is a graph output"; nullopt when it has exactly one use.
std::optional<std::string> singleUseProblem(const ir::Model &model, ir::ValueId value, const std::string &what);

/// Shapes of values: the declared type when it has a rank, else ONNX shape inference on the model as
/// it was when first asked (run at most once, and only when a declared shape is missing). Values of
/// If/Loop/Scan bodies are typed too.
class ShapeOracle {
public:
    explicit ShapeOracle(const ir::Model &model) : m_model(model) {}
    /// The dims (static, symbolic or unknown each), or nullopt when even the rank is unknown.
    std::optional<std::vector<ir::Dim>> dims(ir::ValueId value);
    std::optional<std::size_t> rank(ir::ValueId value);
    /// All dims static.
    std::optional<std::vector<std::int64_t>> staticDims(ir::ValueId value);
    /// The declared type when it names an element type, else the inferred one (nullopt: unknown).
    std::optional<onnx::TypeProto> type(ir::ValueId value);
    /// The element type (0 when unknown).
    int elementType(ir::ValueId value);

private:
    const onnx::TypeProto *inferred(const ir::Value &value);

    const ir::Model &m_model;
    bool m_inferred = false;
    analysis::ShapeInferenceResult m_types;
};

/// Attributes of `node` named in `names` (those present), copied for a new node.
std::vector<onnx::AttributeProto> copyAttributes(const ir::Node &node, const std::vector<std::string> &names);

/// The name a node fused from others takes: `opType` in the scope of the first one it replaces
/// ("/encoder/layers.0/norm1/ReduceMean" → "/encoder/layers.0/norm1/LayerNormalization"), so that it
/// stays in its group and its name says what it is; that node's own name when it has the same op (a
/// Conv that absorbed its BatchNormalization is still "Conv_3").
std::string fusedNodeName(const ir::Node &firstReplaced, const std::string &opType);

/// Inside an open rewrite: a new node `opType` (in `domain`) reading `inputs` whose one output
/// takes the place of `result`; then erases `chain` (in reverse, so consumers go first) and any
/// initializer in `maybeUnread` nothing reads any more. The node is named by fusedNodeName after
/// `chain.front()` and stands for every erased node. Returns the new node.
ir::NodeId replaceChain(PassContext &cx, const std::string &opType, const std::string &domain,
                        const std::vector<ir::ValueId> &inputs, std::vector<onnx::AttributeProto> attributes,
                        ir::ValueId result, const std::vector<ir::NodeId> &chain,
                        const std::vector<ir::ValueId> &maybeUnread = {});

/// `tensor` as a double tensor (any numeric or 16-bit float type), for folding arithmetic.
runtime::Tensor asDouble(const runtime::Tensor &tensor);
/// A double tensor converted to `dataType` (the type of the weight it replaces).
runtime::Tensor fromDouble(const runtime::Tensor &tensor, int dataType);

} // namespace portolan::passes
