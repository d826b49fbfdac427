// Introduced or propagated: each suspect's node is re-run alone on its reference kernel with the
// inputs run B actually gave it. If the reference kernel reproduces B's output, B's kernel is
// right on its inputs: the error came in with them, or (when they were within tolerance) from the
// graph itself — the node computes something other than the original did. If it does not, B's
// kernel or precision adds the error at this node.
#pragma once

#include "compare/Divergence.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::compare {

enum class KernelVerdict {
    Unchecked,       ///< not re-run (a node with subgraphs, or its inputs were not seen)
    KernelDiffers,   ///< B's output differs from the reference kernel's on B's inputs
    KernelAgrees,    ///< the reference kernel reproduces B's output from B's inputs
};

struct KernelCheck {
    const Suspect *suspect = nullptr;
    KernelVerdict verdict = KernelVerdict::Unchecked;
    double kernelError = 0;  ///< B's output against the reference kernel's, over its scale
    std::string explanation; ///< the verdict in a sentence, with the inputs' state
};

/// Re-runs B on `feeds` once, capturing each suspect node's inputs and output, and checks each
/// suspect's node on B's model's reference kernels.
support::Expected<std::vector<KernelCheck>> checkSuspectKernels(const RunSide &b, const runtime::NamedValues &feeds,
                                                                const std::vector<Suspect> &suspects,
                                                                const ComparisonOptions &options);

/// The suspects judged bugs (out of tolerance past what the precision explains), in rank order: the
/// ones checkSuspectKernels is given (drift needs no re-run).
std::vector<Suspect> bugSuspects(const std::vector<Suspect> &ranked);
/// Each bug among `ranked` with its check, `checks` being checkSuspectKernels' answer for
/// bugSuspects(ranked).
std::map<const Suspect *, KernelCheck> checksBySuspect(const std::vector<Suspect> &ranked, const std::vector<KernelCheck> &checks);

} // namespace portolan::compare
