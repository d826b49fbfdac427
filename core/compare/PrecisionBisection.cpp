// Precision bisection over the lowered nodes in topological order (see PrecisionBisection.h).
#include "compare/PrecisionBisection.h"

#include "ir/Topology.h"
#include "runtime/cpu/CpuExecutor.h"

#include <algorithm>
#include <set>

namespace portolan::compare {

using support::makeError;

support::Expected<BisectionResult> bisectPrecision(const ir::Model &model, const runtime::PrecisionPolicy &policy,
                                                   const runtime::NamedValues &feeds, const runtime::NamedValues &expected,
                                                   const Tolerance &tolerance, std::size_t maxRuns)
{
    BisectionResult result;
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return order.takeError();
    std::vector<std::string> candidates; // named nodes the policy lowers: a rule can name them
    std::set<std::string> names;
    for (const ir::NodeId n : *order) {
        const ir::Node &node = model.node(n);
        if (!node.name.empty() && !runtime::movesDataOnly(node) &&
            runtime::choosePrecision(node, policy).precision != runtime::Precision::Fp32 && names.insert(node.name).second)
            candidates.push_back(node.name);
    }
    result.candidates = candidates.size();
    result.tolerance = tolerance;

    // passes(kept): the run with these nodes kept at fp32, against the expected outputs
    auto passes = [&](const std::vector<std::string> &kept) -> support::Expected<bool> {
        if (++result.runs > maxRuns)
            return makeError("bisection-budget", "precision bisection gave up after " + std::to_string(maxRuns) + " runs",
                             model.sourcePath);
        runtime::cpu::CompileOptions options;
        options.precision = policy;
        for (const std::string &name : kept)
            options.precision.keepFp32.push_back(*runtime::KeepFp32Rule::parse("node:" + name));
        runtime::cpu::CpuExecutor executor(model, options);
        auto outputs = executor.run(feeds);
        if (!outputs)
            return outputs.takeError();
        bool ok = outputs->size() == expected.size();
        double worst = 0;
        for (std::size_t k = 0; ok && k < expected.size(); ++k) {
            const TensorMetrics m = compareTensors(expected[k].second.tensor, (*outputs)[k].second.tensor, tolerance);
            ok = m.passed && m.mismatch.empty();
            worst = std::max(worst, normalizedError(m));
        }
        result.worstError = worst;
        return ok;
    };

    auto start = passes({});
    if (!start)
        return start.takeError();
    if (*start) {
        result.neededNothing = true;
        return result;
    }
    auto everything = passes(candidates);
    if (!everything)
        return everything.takeError();
    if (!*everything)
        return makeError("not-precision", "the outputs fail even with every lowered node kept at fp32: the error does not "
                                          "come from the precision (compare the runs to find where it starts)",
                         model.sourcePath);

    // grow: each round keeps the last node of the shortest prefix that makes the outputs pass
    std::vector<std::string> kept;
    for (;;) {
        auto ok = passes(kept);
        if (!ok)
            return ok.takeError();
        if (*ok)
            break;
        std::vector<std::string> rest;
        for (const std::string &c : candidates)
            if (std::find(kept.begin(), kept.end(), c) == kept.end())
                rest.push_back(c);
        std::size_t low = 1, high = rest.size(); // the answer lies in [low, high]: all of rest passes
        while (low < high) {
            const std::size_t middle = (low + high) / 2;
            std::vector<std::string> trial = kept;
            trial.insert(trial.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(middle));
            auto prefixPasses = passes(trial);
            if (!prefixPasses)
                return prefixPasses.takeError();
            if (*prefixPasses)
                high = middle;
            else
                low = middle + 1;
        }
        kept.push_back(rest[low - 1]);
    }
    // refine: a node kept early may not be needed once later ones are
    for (std::size_t i = kept.size(); i-- > 0;) {
        std::vector<std::string> without = kept;
        without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
        auto ok = passes(without);
        if (!ok)
            return ok.takeError();
        if (*ok)
            kept = std::move(without);
    }
    auto final = passes(kept); // leaves worstError at the answer's
    if (!final)
        return final.takeError();
    std::sort(kept.begin(), kept.end(), [&](const std::string &a, const std::string &b) {
        return std::find(candidates.begin(), candidates.end(), a) < std::find(candidates.begin(), candidates.end(), b);
    });
    result.keepFp32 = std::move(kept);
    return result;
}

} // namespace portolan::compare
