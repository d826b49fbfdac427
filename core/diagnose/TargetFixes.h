// The fixes for one group of unsupported nodes, best first, each pass fix tried on a copy of the
// model and re-checked against the profile.
#pragma once

#include "diagnose/TargetCheck.h"

#include <map>
#include <memory>

namespace portolan::diagnose {

/// Runs pipelines on copies of one model and re-checks them, once per distinct pipeline.
class FixTrials {
public:
    FixTrials(const ir::Model &model, const TargetProfile &profile) : m_model(model), m_profile(profile) {}

    /// Fills the measured fields of `fix` (a pipeline fix) for `group`'s nodes.
    void measure(Fix &fix, const ProblemGroup &group);
    /// Fills them for the model's problems as a whole (fixedNodes counts every problem node).
    void measureAll(Fix &fix, std::size_t unsupportedBefore);

private:
    struct Outcome {
        std::string failure;
        ProblemScan scan;
        std::map<std::string, int> opCounts;
    };
    const Outcome &run(const std::string &pipeline);

    const ir::Model &m_model;
    const TargetProfile &m_profile;
    std::map<std::string, Outcome> m_outcomes;
    std::map<std::string, int> m_opCounts; ///< of the model as given (main graph), filled on first use
};

/// The candidate fixes for `group`, best first (pass fixes untried), ending with fallback and plugin.
std::vector<Fix> candidateFixes(const ir::Model &model, const TargetProfile &profile, const ProblemGroup &group,
                                const Partitioning &partitions, const std::map<std::string, std::vector<std::int64_t>> &inputSizes);

/// The newest ai.onnx opset this build's ONNX knows (the version converter's ceiling).
int newestKnownOpset();

/// Nodes with at least one problem.
std::size_t unsupportedCount(const std::vector<ProblemGroup> &groups);


} // namespace portolan::diagnose
