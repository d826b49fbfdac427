// A comparison as JSON (see ComparisonJson.h).
#include "session/ComparisonJson.h"

#include <cmath>

namespace portolan::session {

namespace {

void number(support::JsonWriter &w, const char *key, double v)
{
    if (std::isfinite(v))
        w.field(key, v);
    else
        w.key(key).value(std::string(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
}

void writeNames(support::JsonWriter &w, const char *key, const std::vector<std::string> &names)
{
    w.key(key).beginArray();
    for (const std::string &n : names)
        w.value(n);
    w.endArray();
}

} // namespace

void writeTensorJson(support::JsonWriter &w, const compare::ComparedTensor &t)
{
    const compare::TensorMetrics &m = t.metrics;
    w.beginObject().field("name", t.name);
    if (t.nameInB != t.name)
        w.field("name_in_b", t.nameInB);
    w.field("node", t.node).field("op_type", t.opType).field("output", t.output);
    w.field("verdict", compare::verdictName(t.verdict));
    if (t.failed())
        w.field("verdict_why", t.verdictWhy);
    if (!m.mismatch.empty()) {
        w.field("mismatch", m.mismatch).field("passed", false).endObject();
        return;
    }
    w.field("passed", m.passed).field("elements", m.elements).field("out_of_tolerance", m.outOfTolerance);
    const std::pair<const char *, double> statistics[] = {
        {"max_abs", m.maxAbs},   {"mean_abs", m.meanAbs}, {"median_abs", m.medianAbs}, {"p99_abs", m.p99Abs},
        {"max_rel", m.maxRel},   {"mean_rel", m.meanRel}, {"median_rel", m.medianRel}, {"p99_rel", m.p99Rel},
        {"rmse", m.rmse},        {"cosine", m.cosine},    {"snr_db", m.snrDb},         {"psnr_db", m.psnrDb}};
    for (const auto &[key, v] : statistics)
        number(w, key, v);
    number(w, "reference_scale", m.referenceScale);
    number(w, "normalized_error", compare::normalizedError(t));
    w.field("depth", t.depth);
    number(w, "atol", m.appliedAtol);
    number(w, "rtol", t.tolerance.rtol);
    if (t.tolerance.quantile < 1)
        number(w, "quantile", t.tolerance.quantile);
    number(w, "explained_error", t.explainedError);
    number(w, "needed_atol", m.neededAtol);
    number(w, "needed_rtol", m.neededRtol);
    w.key("nan").beginObject().field("a", m.referenceNans).field("b", m.actualNans).endObject();
    w.key("inf").beginObject().field("a", m.referenceInfs).field("b", m.actualInfs).endObject();
    if (m.worstIndex >= 0) {
        w.key("worst").beginObject().key("index").beginArray();
        for (const std::int64_t i : m.worstAt)
            w.value(i);
        w.endArray();
        number(w, "a", m.worstReference);
        number(w, "b", m.worstActual);
        w.endObject();
    }
    if (m.top1)
        w.field("top1", *m.top1).field("top5", *m.top5);
    w.endObject();
}

std::string comparisonJson(const ComparisonOutcome &outcome)
{
    const compare::ComparisonResult &result = outcome.result;
    const auto kernelChecks = compare::checksBySuspect(outcome.suspects, outcome.kernelChecks);
    support::JsonWriter w;
    w.beginObject().field("model", outcome.loaded->sourcePath).field("pipeline", outcome.pipelineLabel);
    w.key("a").beginObject().field("run", result.labelA).field("seconds", result.secondsA).endObject();
    w.key("b").beginObject().field("run", result.labelB).field("seconds", result.secondsB).endObject();
    w.field("aligned", static_cast<std::uint64_t>(result.alignedValues))
        .field("compared", static_cast<std::uint64_t>(result.tensors.size()))
        .field("outputs_passed", result.outputsPassed())
        .field("outputs_verdict", compare::verdictName(result.outputsVerdict()))
        .field("tolerances", outcome.request.toleranceText());
    w.key("memory").beginObject().field("peak_held_bytes", static_cast<std::uint64_t>(result.peakHeldBytes))
        .field("spilled_bytes", static_cast<std::uint64_t>(result.spilledBytes)).endObject();
    w.key("outputs").beginArray();
    for (const compare::ComparedTensor *t : result.outputs())
        writeTensorJson(w, *t);
    w.endArray();
    if (outcome.firstDivergence)
        w.field("first_divergence", outcome.firstDivergence->name);
    else
        w.key("first_divergence").null();
    w.key("suspects").beginArray();
    for (const compare::Suspect &s : outcome.suspects) {
        w.beginObject().field("tensor", s.tensor->name).field("node", s.tensor->node).field("op_type", s.tensor->opType)
            .field("introduced", s.introduced).field("error", s.error).field("input_error", s.inputError);
        number(w, "amplification", s.amplification);
        w.field("why", s.why);
        if (const auto it = kernelChecks.find(&s); it != kernelChecks.end())
            w.key("kernel_check").beginObject().field("verdict", compare::kernelVerdictName(it->second.verdict))
                .field("kernel_error", it->second.kernelError).field("explanation", it->second.explanation).endObject();
        w.endObject();
    }
    w.endArray();
    w.key("tensors").beginArray();
    for (const compare::ComparedTensor &t : result.tensors)
        writeTensorJson(w, t);
    w.endArray();
    writeNames(w, "not_compared", result.notCompared);
    writeNames(w, "unknown_imported", outcome.unknownImported);
    w.endObject();
    return w.str();
}

} // namespace portolan::session
