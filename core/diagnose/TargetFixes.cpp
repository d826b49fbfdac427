#include "diagnose/TargetFixes.h"
#include "diagnose/FreezeDims.h"

#include "analysis/OpSchemas.h"
#include "analysis/SummaryFormat.h"
#include "opset/PortolanOps.h"
#include "passes/CompileReport.h"
#include "passes/DecomposeSupport.h"
#include "passes/PassManager.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>

namespace portolan::diagnose {

const char *fixKey(FixKind kind)
{
    switch (kind) {
    case FixKind::ConvertOpset: return "convert-opset";
    case FixKind::Decompose: return "decompose";
    case FixKind::FoldConstants: return "fold-constants";
    case FixKind::FreezeShapes: return "freeze-shapes";
    case FixKind::LowerPrecision: return "lower-precision";
    case FixKind::Fallback: return "fallback";
    case FixKind::Plugin: return "plugin";
    case FixKind::Combined: return "combined";
    }
    return "unknown";
}

namespace {

bool hasDecomposition(const ProblemGroup &group)
{
    const bool standard = group.domain.empty();
    const bool portolan = group.domain == opset::kPortolanDomain;
    for (const auto *rules : {&passes::transformerDecompositions(), &passes::fusedLinearDecompositions()})
        for (const passes::DecomposeRule &rule : *rules)
            if (rule.opType == group.opType && ((standard && rule.standardDomain) || (portolan && rule.portolanDomain)))
                return true;
    return false;
}

/// The opset nearest the model's at which the target takes both the model and this op.
std::optional<int> reachableOpset(const ir::Model &model, const TargetProfile &profile, const ProblemGroup &group)
{
    const OpSupport *op = profile.op(group.domain, group.opType);
    const auto current = model.opsetVersion("");
    if (!op || !op->opsets || !group.domain.empty() || !current)
        return std::nullopt;
    OpsetRange accepted = profile.opsets.contains("") ? profile.opsets.at("") : OpsetRange{};
    const int low = std::max({accepted.min, op->opsets->min, 7});
    const int high = std::min({accepted.max, op->opsets->max, newestKnownOpset()});
    for (int distance = 1; distance <= 32; ++distance)
        for (const int v : {*current - distance, *current + distance})
            if (v >= low && v <= high && analysis::findSchema(group.opType, "", v))
                return v;
    return std::nullopt;
}

/// The first element type of `allowed` a float model can be lowered to, as lower-precision's option.
std::optional<std::string> lowerableTo(const std::vector<int> &allowed)
{
    const auto has = [&](int t) { return std::find(allowed.begin(), allowed.end(), t) != allowed.end(); };
    if (has(onnx::TensorProto::FLOAT))
        return std::nullopt;
    if (has(onnx::TensorProto::FLOAT16))
        return "fp16";
    if (has(onnx::TensorProto::BFLOAT16))
        return "bf16";
    if (has(onnx::TensorProto::INT8))
        return "int8";
    return std::nullopt;
}

std::string fallbackSummary(const ProblemGroup &group, const Partitioning &p)
{
    return "run " + std::string(group.nodes.size() == 1 ? "this node" : "these nodes") +
           " on a host runtime beside the target: with every unsupported node there, " +
           std::to_string(p.targetPartitions) + " target and " + counted(p.fallbackPartitions, "host partition") +
           " pass " + counted(p.crossingTensors, "tensor") + " between them on every run";
}

Fix pipelineFix(FixKind kind, std::string pipeline, std::string summary)
{
    Fix fix;
    fix.kind = kind;
    fix.pipeline = std::move(pipeline);
    fix.summary = std::move(summary);
    return fix;
}

} // namespace

std::string counted(std::size_t count, const std::string &noun)
{
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

int newestKnownOpset()
{
    return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at("").second;
}

std::size_t unsupportedCount(const std::vector<ProblemGroup> &groups)
{
    std::set<ir::NodeId> nodes;
    for (const ProblemGroup &g : groups)
        for (const NodeProblem &p : g.nodes)
            nodes.insert(p.node);
    return nodes.size();
}

std::vector<Fix> candidateFixes(const ir::Model &model, const TargetProfile &profile, const ProblemGroup &group,
                                const Partitioning &partitions, const std::map<std::string, std::vector<std::int64_t>> &inputSizes)
{
    std::vector<Fix> fixes;
    const FrozenInputs open = freezeOpenInputs(model, inputSizes);
    const std::string &frozen = open.text;
    // runnable as it is; which 1s stand for a size nothing told is said, never left silent
    const std::string ones = open.unsized.empty() ? std::string() : "; " + unsizedNote(open) + ": put yours";
    switch (group.cause) {
    case Cause::OpsetTooOld:
    case Cause::OpsetTooNew:
        if (const auto v = reachableOpset(model, profile, group))
            fixes.push_back(pipelineFix(FixKind::ConvertOpset, "convert-opset{target=" + std::to_string(*v) + "}",
                                        "convert the model to opset " + std::to_string(*v) + ", where the target supports " +
                                            group.opType));
        if (hasDecomposition(group))
            fixes.push_back(pipelineFix(FixKind::Decompose, "decompose{ops=" + group.opType + "}",
                                        "rewrite " + group.opType + " into primitive ops"));
        break;
    case Cause::MissingOp:
        if (hasDecomposition(group))
            fixes.push_back(pipelineFix(FixKind::Decompose, "decompose{ops=" + group.opType + "}",
                                        "rewrite " + group.opType + " into primitive ops"));
        fixes.push_back(pipelineFix(FixKind::FoldConstants, "fold-constants",
                                    "precompute the nodes whose inputs are all constant, so they vanish"));
        break;
    case Cause::NonConstantInput:
        fixes.push_back(pipelineFix(FixKind::FoldConstants, "fold-constants",
                                    "precompute the input where it depends only on constants"));
        if (!frozen.empty())
            fixes.push_back(pipelineFix(FixKind::FreezeShapes, "freeze-shapes{input=" + frozen + "},fold-constants",
                                        "fix the input dims" + ones + ", so shape computations become constants, then "
                                        "fold them"));
        break;
    case Cause::DynamicShape:
        // Dims a shape computation hides (Shape → … → Expand) are known once it is folded.
        if (!frozen.empty()) {
            const std::string freeze = "freeze-shapes{input=" + frozen + "}";
            const std::string why = "fix the input dims" + ones + " (to serve several sizes, compile one model per size "
                                    "bucket)";
            fixes.push_back(pipelineFix(FixKind::FreezeShapes, freeze, why));
            fixes.push_back(pipelineFix(FixKind::FreezeShapes, freeze + ",fold-constants,infer-shapes",
                                        why + ", then fold the shape computations"));
        } else
            fixes.push_back(pipelineFix(FixKind::FoldConstants, "fold-constants,infer-shapes",
                                        "fold the shape computations that hide these dims and infer the shapes again"));
        break;
    case Cause::ElementType: {
        const OpSupport *op = profile.op(group.domain, group.opType);
        const std::vector<int> &allowed = op && !op->dtypes.empty() ? op->dtypes : profile.dtypes;
        if (const auto to = lowerableTo(allowed))
            fixes.push_back(pipelineFix(FixKind::LowerPrecision, "lower-precision{to=" + *to + "}",
                                        "store weights and activations as " + *to + " (check the error with "
                                        "portolan compare --b cpu:" + *to + ")"));
        break;
    }
    case Cause::AttributeValue:
    case Cause::Rank: break;
    }
    Fix fallback;
    fallback.kind = FixKind::Fallback;
    fallback.summary = fallbackSummary(group, partitions);
    fixes.push_back(std::move(fallback));
    if (!group.opType.empty() && group.cause != Cause::DynamicShape) {
        Fix plugin;
        plugin.kind = FixKind::Plugin;
        plugin.summary = "write " + group.opType + " as a custom op or plugin for the target (the last resort: "
                         "written, tested and kept up with every release by you)";
        fixes.push_back(std::move(plugin));
    }
    return fixes;
}

const FixTrials::Outcome &FixTrials::run(const std::string &pipelineText)
{
    if (const auto it = m_outcomes.find(pipelineText); it != m_outcomes.end())
        return it->second;
    Outcome outcome;
    auto pipeline = passes::parsePipeline(pipelineText);
    if (!pipeline)
        outcome.failure = pipeline.error().format();
    else if (auto result = passes::runPipeline(m_model, *pipeline, {}); !result)
        outcome.failure = result.error().format();
    else {
        outcome.scan = findProblems(*result->model, m_profile);
        outcome.opCounts = passes::opHistogram(*result->model);
    }
    return m_outcomes.emplace(pipelineText, std::move(outcome)).first->second;
}

void FixTrials::measure(Fix &fix, const ProblemGroup &group)
{
    const Outcome &outcome = run(fix.pipeline);
    measureAll(fix, 0);
    if (!outcome.failure.empty())
        return;
    std::size_t remaining = 0;
    for (const ProblemGroup &after : outcome.scan.groups)
        if (after.cause == group.cause && after.domain == group.domain && after.opType == group.opType)
            remaining += after.nodes.size();
    fix.fixedNodes = group.nodes.size() > remaining ? group.nodes.size() - remaining : 0;
}

void FixTrials::measureAll(Fix &fix, std::size_t unsupportedBefore)
{
    const Outcome &outcome = run(fix.pipeline);
    fix.tried = true;
    fix.failure = outcome.failure;
    if (!outcome.failure.empty())
        return;
    if (m_opCounts.empty())
        m_opCounts = passes::opHistogram(m_model);
    fix.unsupportedAfter = unsupportedCount(outcome.scan.groups);
    fix.fixedNodes = unsupportedBefore > fix.unsupportedAfter ? unsupportedBefore - fix.unsupportedAfter : 0;
    fix.createdOps.clear();
    for (const auto &[op, count] : outcome.opCounts)
        if (count > (m_opCounts.contains(op) ? m_opCounts.at(op) : 0))
            fix.createdOps.push_back(op);
}

} // namespace portolan::diagnose
