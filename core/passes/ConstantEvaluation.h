// Constant evaluation shared by fold-constants and canonicalize: which nodes may be computed ahead
// of time, their evaluation on the reference kernels, and the rewrite that puts the results in
// their place (an initializer, or a Constant node where the value is a graph output).
#pragma once

#include "passes/Pass.h"
#include "runtime/Tensor.h"
#include "support/Expected.h"

#include <optional>
#include <string>
#include <vector>

namespace portolan::passes {

/// Random*, Multinomial, Bernoulli, Dropout: results may differ from run to run (never folded or merged).
bool isNondeterministic(const ir::Node &node);
/// The node holds subgraphs (If, Loop, Scan…).
bool hasSubgraphs(const ir::Node &node);

/// The value a Shape or Size node computes when its input's declared shape is fully static.
std::optional<runtime::Tensor> staticShapeValue(const ir::Model &model, const ir::Node &node);

/// Runs `node`'s reference kernel on `inputs` (nullopt: an omitted optional input), allocating at
/// most `memoryCap` bytes; one tensor per output (undefined for omitted outputs).
support::Expected<std::vector<runtime::Tensor>> evaluateNode(const ir::Model &model, const ir::Node &node,
                                                             const std::vector<std::optional<runtime::Tensor>> &inputs,
                                                             std::size_t memoryCap);

struct FoldSettings {
    std::string pattern;      ///< rewrite pattern name ("fold-constant", "shape-computation")
    std::size_t maxBytes = 0; ///< largest output a fold may create
    /// Fold only Shape/Size of statically shaped values and the integer (or bool) values computed
    /// from their results (canonicalize), not every constant subgraph.
    bool shapeComputationsOnly = false;
};

/// Folds every foldable node, graph by graph in topological order, to a fixed point (a fold's result
/// is visible to its consumers at once, so chains fold in one sweep). One rewrite per node. Declines
/// are reported once per node. Returns the number of nodes folded.
std::size_t foldConstants(PassContext &cx, const FoldSettings &settings);

/// Inside an open rewrite: a constant holding `tensor` takes the place of `value` (an initializer,
/// or a Constant node when `value` is a graph output, so the output keeps its name and a producer).
/// Requires that `value` be replaceable (see Rewriter::canReplace; a Constant node always is).
ir::ValueId replaceWithConstant(PassContext &cx, ir::ValueId value, const runtime::Tensor &tensor);

/// Inside an open rewrite: erases those of `values` nothing reads any more and that are constants:
/// initializers that are not graph inputs or outputs, and Constant nodes' outputs.
void eraseUnreadConstants(PassContext &cx, const std::vector<ir::ValueId> &values);

/// A 1-D int64 tensor, for shapes and perms.
runtime::Tensor int64Tensor(const std::vector<std::int64_t> &values);
/// The values of an integer (int32/int64) constant tensor, nullopt for other element types.
std::optional<std::vector<std::int64_t>> integerValues(const runtime::Tensor &tensor);

} // namespace portolan::passes
