// Ranking suspects from the compared tensors and B's graph.
#include "compare/Divergence.h"
#include "compare/RoundingDepth.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace portolan::compare {

namespace {

/// Every tensor with an error, in B's order, with its inputs' state and why it is a suspect.
std::vector<Suspect> suspectsInOrder(const ComparisonResult &result, const ir::Model &b)
{
    std::unordered_map<ir::ValueId, const ComparedTensor *> byValue;
    for (const ComparedTensor &t : result.tensors)
        byValue[t.inB] = &t;
    std::vector<Suspect> suspects;
    for (const ComparedTensor &t : result.tensors) {
        const bool failed = t.failed(), bug = t.verdict == Verdict::Bug;
        Suspect s;
        s.tensor = &t;
        s.error = normalizedError(t);
        bool inputsPass = true;
        double inputMaxAbs = 0;
        const ir::Value &value = b.value(t.inB);
        if (value.producer.valid())
            for (const ir::ValueId in : b.node(value.producer).inputs) {
                const auto it = in.valid() ? byValue.find(in) : byValue.end();
                if (it == byValue.end()) {
                    // a graph input or a weight is exact; a computed value that was not compared is unknown
                    const bool computed = in.valid() && b.value(in).producer.valid() && !b.node(b.value(in).producer).isConstant();
                    s.inputsUnseen = s.inputsUnseen || computed;
                    continue;
                }
                s.inputError = std::max(s.inputError, normalizedError(*it->second));
                inputMaxAbs = std::max(inputMaxAbs, it->second->metrics.maxAbs);
                inputsPass = inputsPass && it->second->verdict != Verdict::Bug;
            }
        const bool absolute = value.producer.valid() && copiesElements(b.node(value.producer)) && t.metrics.mismatch.empty();
        const double outError = absolute ? t.metrics.maxAbs : s.error, inError = absolute ? inputMaxAbs : s.inputError;
        // inf / inf (a NaN on one side in and out) is carried, not amplified: 1 keeps the ranking an order
        s.amplification = std::isinf(inError) && std::isinf(outError) ? 1
                          : inError > 0 ? outError / inError
                                        : (outError > 0 ? std::numeric_limits<double>::infinity() : 0);
        s.inputsPass = inputsPass;
        const bool random = value.producer.valid() && b.node(value.producer).drawsRandomNumbers();
        s.introduced = bug && inputsPass && !s.inputsUnseen && !random;
        if (!failed && s.error == 0)
            continue;
        char why[320];
        if (random)
            std::snprintf(why, sizeof why, "a random op: its values differ from run to run, so neither it nor what reads it "
                                           "can be compared for values");
        else if (bug && inputsPass && s.inputsUnseen)
            std::snprintf(why, sizeof why, "a bug; its node's inputs were not compared (run %s lacks them), so the "
                                           "error may start further up", result.labelB.c_str());
        else if (s.introduced)
            std::snprintf(why, sizeof why, "a bug while its inputs are at most drift: the error starts here (×%.3g)",
                          s.amplification);
        else if (bug)
            std::snprintf(why, sizeof why, "a bug, carrying its inputs' (×%.3g)", s.amplification);
        else if (failed)
            std::snprintf(why, sizeof why, "drift: out of tolerance, within what rounding explains (×%.3g its inputs' error)",
                          s.amplification);
        else if (s.inputError == 0 && s.inputsUnseen)
            std::snprintf(why, sizeof why, "within tolerance (its node's inputs were not compared)");
        else if (s.inputError == 0)
            std::snprintf(why, sizeof why, "within tolerance; the first error on this path (its inputs are exact)");
        else
            std::snprintf(why, sizeof why, "within tolerance; amplifies its inputs' error ×%.3g", s.amplification);
        s.why = why;
        suspects.push_back(std::move(s));
    }
    return suspects;
}

} // namespace

const ComparedTensor *firstDivergence(const ComparisonResult &result, const ir::Model &b)
{
    for (const Suspect &s : suspectsInOrder(result, b))
        if (s.introduced)
            return s.tensor;
    return nullptr;
}

std::vector<Suspect> rankSuspects(const ComparisonResult &result, const ir::Model &b, std::size_t limit)
{
    std::vector<Suspect> suspects = suspectsInOrder(result, b);
    std::stable_sort(suspects.begin(), suspects.end(), [](const Suspect &x, const Suspect &y) {
        if (x.introduced != y.introduced)
            return x.introduced;
        if (x.tensor->verdict != y.tensor->verdict) // bugs, then drift, then the equivalent
            return x.tensor->verdict > y.tensor->verdict;
        if (x.introduced)
            return x.error > y.error;
        return x.amplification > y.amplification;
    });
    if (suspects.size() > limit)
        suspects.resize(limit);
    return suspects;
}

} // namespace portolan::compare
