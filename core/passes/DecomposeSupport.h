// The pieces decompose is made of: an Emitter that writes the primitives replacing one node (each
// created node stands for it), and the rules, one per op type, that say whether a node can be
// decomposed and how. Rules live in DecomposeRules.cpp (normalizations, attention, activations,
// Einsum) and DecomposeFusedLinear.cpp (FusedConv, FusedGemm, FusedMatMul).
#pragma once

#include "ir/Model.h"
#include "passes/FusionSupport.h"
#include "passes/Pass.h"
#include "runtime/Tensor.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace portolan::passes {

/// Writes standard-domain nodes in the graph of `node`, before it, each standing for it. Constants
/// are initializers of `elementType` (the element type of the node's input 0).
class Emitter {
public:
    /// `outputTypes`: the types of the node's outputs (declared or inferred), given to their replacements.
    Emitter(PassContext &cx, const ir::Node &node, int elementType, std::vector<std::optional<onnx::TypeProto>> outputTypes);

    const ir::Model &model() const { return m_cx.model; }
    int opset() const { return m_opset; }
    int elementType() const { return m_type; }

    /// A new node `opType` reading `inputs` (invalid ids: omitted optional inputs); its one output.
    ir::ValueId op(const std::string &opType, const std::vector<ir::ValueId> &inputs,
                   std::vector<onnx::AttributeProto> attributes = {});
    /// A scalar constant of the element type.
    ir::ValueId scalar(double value);
    /// A constant holding `tensor` as it is.
    ir::ValueId constant(const runtime::Tensor &tensor, const std::string &hint);
    /// A 1-D int64 constant.
    ir::ValueId ints(const std::vector<std::int64_t> &values);
    /// ReduceMean over `axes`, keepdims=1 (axes as attribute before opset 18, as input from it).
    ir::ValueId reduceMean(ir::ValueId x, const std::vector<std::int64_t> &axes);
    /// Transpose by `perm`, or `x` itself when `perm` is the identity.
    ir::ValueId transpose(ir::ValueId x, const std::vector<std::int64_t> &perm);
    /// Every reader of the node's output `index` reads `value` instead (which takes its type).
    void replaceOutput(std::size_t index, ir::ValueId value);

    std::size_t created() const { return m_created; }

private:
    PassContext &m_cx;
    const ir::Node &m_node;
    int m_type;
    int m_opset;
    std::vector<std::optional<onnx::TypeProto>> m_outputTypes;
    std::size_t m_created = 0;
};

/// What a rule says about one node: why it cannot be decomposed, or how to.
struct DecomposePlan {
    std::string why;                    ///< non-empty: declined, for this reason
    std::function<void(Emitter &)> emit; ///< writes the primitives and replaces the node's outputs
};

/// What a rule may read.
struct DecomposeInput {
    const ir::Model &model;
    const ir::Node &node;
    ShapeOracle &shapes;
    int elementType; ///< of input 0 (0: unknown)
};

struct DecomposeRule {
    std::string opType;
    bool standardDomain; ///< applies to the standard op of this type
    bool portolanDomain; ///< applies to the ai.portolan op of this type
    DecomposePlan (*plan)(const DecomposeInput &in);
    std::size_t outputs = 1; ///< outputs the primitives provide (a node whose later outputs are read is declined)
};

/// LayerNormalization, RMSNormalization, SkipLayerNormalization, Attention, Gelu, HardSwish, Einsum.
const std::vector<DecomposeRule> &transformerDecompositions();
/// FusedConv, FusedGemm, FusedMatMul.
const std::vector<DecomposeRule> &fusedLinearDecompositions();

/// A plan that declines with `why`.
inline DecomposePlan declined(std::string why) { return DecomposePlan{std::move(why), {}}; }

/// Emits Gelu's erf form (`tanh`: the tanh approximation) of `x`; shared with the fused activations.
ir::ValueId emitGelu(Emitter &e, ir::ValueId x, bool tanh);

/// The axes from `axis` to the last of a tensor of rank `rank` (negative, so any rank ≥ −axis works
/// when `axis` is negative); nullopt when `axis` is positive and the rank is unknown or too small.
std::optional<std::vector<std::int64_t>> axesFrom(std::int64_t axis, std::optional<std::size_t> rank);

} // namespace portolan::passes
