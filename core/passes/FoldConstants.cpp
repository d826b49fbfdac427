// fold-constants: evaluate nodes whose inputs are all constant, once, on the reference kernels.
//
//   Before: W (initializer) → Transpose → Wt → Mul(Wt, 2) → W2 → MatMul(x, W2) → y
//   After:  W2' (initializer = 2·Wᵀ) → MatMul(x, W2') → y
//
// A node folds when every present input is a constant (an initializer that is not also a graph
// input, or a Constant node's output), it is deterministic (not Random*, Multinomial, Bernoulli,
// Dropout) and has no subgraphs; Shape and Size fold whenever their input's declared shape is fully
// static, whatever its contents. Its outputs become initializers (a graph output becomes a Constant
// node instead, so it keeps its name and a producer). Chains fold in one topological sweep; the
// pass sweeps again until nothing folds. A fold whose output would exceed max-bytes is declined
// (with the size), as are nodes reading an initializer that is also a graph input (it may be
// overridden at run time), nondeterministic ops and control flow with constant inputs. Constant
// inputs nothing reads after the fold are removed with the node. DequantizeLinear of an integer
// weight does not fold: the int8 weight and its scale are what a QDQ graph hands a target.
#include "passes/ConstantEvaluation.h"
#include "passes/Pass.h"

namespace portolan::passes {

support::Status FoldConstants::run(PassContext &cx)
{
    auto maxBytes = cx.options.integer("max-bytes");
    if (!maxBytes)
        return maxBytes.error();
    if (*maxBytes < 0)
        return support::makeError("bad-option", "fold-constants: option 'max-bytes' must not be negative (it is " +
                                                    std::to_string(*maxBytes) + ")");
    foldConstants(cx, FoldSettings{"fold-constant", static_cast<std::size_t>(*maxBytes), false});
    return support::Status::ok();
}

} // namespace portolan::passes
