// Introduced or propagated: each suspect's node is re-run alone on its reference kernel with the
// inputs run B actually gave it. If the reference kernel reproduces B's output, B's kernel is
// right on its inputs: the error came in with them, or (when they were within tolerance) from the
// graph itself — the node computes something other than the original did. If it differs by no more
// than one rounding step at B's precision explains, the kernel rounds; past that, B's kernel adds
// error of its own at this node: a drift tensor whose kernel does so is a bug after all.
#pragma once

#include "compare/Divergence.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::compare {

enum class KernelVerdict {
    Unchecked,       ///< not re-run (a node with subgraphs, or its inputs were not seen)
    KernelDiffers,   ///< B's output differs from the reference kernel's on B's inputs, past one rounding step
    KernelRounds,    ///< it differs by no more than one rounding step at the precision explains
    KernelAgrees,    ///< the reference kernel reproduces B's output from B's inputs (within the default tolerance)
};

/// "kernel-differs", "kernel-rounds", "kernel-agrees" or "unchecked".
const char *kernelVerdictName(KernelVerdict verdict);

struct KernelCheck {
    const ComparedTensor *tensor = nullptr; ///< the suspect's tensor
    KernelVerdict verdict = KernelVerdict::Unchecked;
    double kernelError = 0;  ///< B's output against the reference kernel's, over its scale
    std::string explanation; ///< the verdict in a sentence, with the inputs' state
};

/// Re-runs B on `feeds` once, capturing each suspect node's inputs and output, and checks each
/// suspect's node on B's model's reference kernels.
support::Expected<std::vector<KernelCheck>> checkSuspectKernels(const RunSide &b, const runtime::NamedValues &feeds,
                                                                const std::vector<Suspect> &suspects,
                                                                const ComparisonOptions &options);

/// The suspects out of tolerance (bugs and drift), in rank order: the ones checkSuspectKernels is given.
std::vector<Suspect> checkedSuspects(const std::vector<Suspect> &ranked);
/// Makes a bug of each drift tensor of `result` whose node alone differs from its reference kernel
/// past one rounding step (its own error is not its precision's); true when there was one.
bool judgeOwnErrors(ComparisonResult &result, const std::vector<KernelCheck> &checks);
struct JudgedSuspects {
    std::vector<Suspect> suspects;  ///< ranked, after judgeOwnErrors
    std::vector<KernelCheck> checks; ///< one per suspect out of tolerance (none when the outputs passed)
};

/// The comparison's last step: ranks `limit` suspects of `result` (B's model being `b.model`); when
/// `check` and an output is out of tolerance, re-runs those out of tolerance alone, makes bugs of
/// the drift whose own error is past its precision's (judgeOwnErrors) and ranks again.
support::Expected<JudgedSuspects> judgeSuspects(ComparisonResult &result, const RunSide &b, const runtime::NamedValues &feeds,
                                                const ComparisonOptions &options, std::size_t limit, bool check);

/// Each suspect of `ranked` that was checked, with its check (matched by tensor).
std::map<const Suspect *, KernelCheck> checksBySuspect(const std::vector<Suspect> &ranked, const std::vector<KernelCheck> &checks);

} // namespace portolan::compare
