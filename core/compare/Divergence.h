// Where error is introduced rather than carried: a tensor judged a bug (compare/Verdict.h: out of
// tolerance past what its precision explains) while every compared input of its producer is at most
// drift is where the divergence starts; elsewhere the ratio of a
// node's output error to its inputs' worst (each over its reference's scale) says how much it
// amplifies what it was given (in absolute error for ops that only copy elements, whose parts can
// have smaller scales than the whole). Suspects are ranked: introduced first, by error, then bugs, drift and
// the equivalent, each by amplification.
#pragma once

#include "compare/RunComparison.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct Suspect {
    const ComparedTensor *tensor = nullptr;
    double error = 0;         ///< max |error| / the reference's scale
    double inputError = 0;    ///< the same, worst over the producer's compared inputs (0: exact inputs)
    double amplification = 0; ///< error / inputError (inf when the inputs are exact); max |error| over the
                              ///< inputs' for ops that copy elements (Split, Slice, Transpose…)
    bool inputsPass = true;   ///< every compared input of its producer is equivalent or drift (no bug)
    bool inputsUnseen = false; ///< an input its producer reads is computed by a node, but was not compared
                               ///< (an imported run with outputs only): where the error starts is unknown
    bool introduced = false;  ///< a bug while every input is compared and at most drift
    std::string why;
};

/// The first `limit` suspects among `result`'s tensors, `b` being the model run B ran.
std::vector<Suspect> rankSuspects(const ComparisonResult &result, const ir::Model &b, std::size_t limit = 10);

/// The first tensor, in B's order, whose error starts at its node (a bug while every input is exact
/// or compared and at most drift), or nullptr.
const ComparedTensor *firstDivergence(const ComparisonResult &result, const ir::Model &b);

/// normalizedError of a compared tensor's metrics.
inline double normalizedError(const ComparedTensor &tensor)
{
    return normalizedError(tensor.metrics);
}

} // namespace portolan::compare
