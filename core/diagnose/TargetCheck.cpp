#include "diagnose/TargetCheck.h"
#include "diagnose/FreezeDims.h"

#include "diagnose/Partition.h"
#include "diagnose/TargetFixes.h"

#include <algorithm>
#include <set>

namespace portolan::diagnose {

namespace {

support::Diagnostic finding(support::Severity severity, std::string code, std::string message, const ir::Model &model)
{
    support::Diagnostic d;
    d.severity = severity;
    d.code = std::move(code);
    d.message = std::move(message);
    d.model = model.sourcePath;
    return d;
}

/// The imported opsets the target does not accept, and what its shape rules ask of the inputs.
support::Diagnostics modelFindings(const ir::Model &model, const TargetProfile &profile)
{
    support::Diagnostics out;
    for (const auto &import : model.header.opset_import()) {
        const std::string domain = import.domain() == "ai.onnx" ? std::string() : import.domain();
        const auto range = profile.opsets.find(domain);
        if (range == profile.opsets.end() || range->second.contains(static_cast<int>(import.version())))
            continue;
        out.push_back(finding(support::Severity::Error, "opset-unsupported",
                              "the model imports " + (domain.empty() ? std::string("ai.onnx") : domain) + " opset " +
                                  std::to_string(import.version()) + "; " + profile.name + " accepts opset " +
                                  range->second.str(),
                              model));
    }
    std::string dynamicInputs;
    for (const ir::ValueId v : model.graph(model.mainGraph()).inputs) {
        const ir::Value &value = model.value(v);
        if (!value.isInitializer() && value.shape().rankKnown() && !value.shape().isStatic())
            dynamicInputs += (dynamicInputs.empty() ? "" : ", ") + value.name + value.shape().str();
    }
    if (dynamicInputs.empty())
        return out;
    if (profile.dynamicShapes == DynamicShapes::Profile)
        out.push_back(finding(support::Severity::Info, "shape-profile-needed",
                              profile.name + " builds dynamic inputs with an optimization profile (min, opt and max "
                                             "dims for each): " + dynamicInputs,
                              model));
    else if (profile.dynamicShapes == DynamicShapes::Static)
        out.push_back(finding(support::Severity::Error, "dynamic-inputs",
                              profile.name + " compiles static shapes only; these inputs have symbolic dims: " +
                                  dynamicInputs + " (freeze-shapes fixes them)",
                              model));
    return out;
}

/// The best measured pass fix of every group, and the model's own opset conversion, as one pipeline.
std::optional<Fix> combinedFix(const TargetCheck &check, const ir::Model &model, const TargetProfile &profile,
                               const std::map<std::string, std::vector<std::int64_t>> &inputSizes)
{
    std::vector<std::pair<const ProblemGroup *, const Fix *>> chosen;
    for (const ProblemGroup &g : check.groups) {
        const Fix *best = nullptr; // the one fixing most of the group; the earlier on a tie
        for (const Fix &f : g.fixes)
            if (f.ran() && f.fixedNodes > (best ? best->fixedNodes : 0))
                best = &f;
        if (best)
            chosen.emplace_back(&g, best);
    }
    // Converting first lets the other passes write the target opset's forms; shapes are frozen
    // before constants are folded; decompositions merge into one invocation.
    std::string convert, freeze, decomposeOps;
    std::vector<std::string> rest;
    std::set<std::string> decomposed;
    for (const auto &[group, f] : chosen) {
        switch (f->kind) {
        case FixKind::ConvertOpset: convert = convert.empty() ? f->pipeline : convert; break;
        case FixKind::FreezeShapes:
            // The longer form (freeze, then fold) serves the plain one's nodes too.
            if (f->pipeline.size() > freeze.size())
                freeze = f->pipeline;
            break;
        case FixKind::Decompose:
            if (decomposed.insert(group->opType).second)
                decomposeOps += (decomposeOps.empty() ? "" : ",") + group->opType;
            break;
        default: rest.push_back(f->pipeline);
        }
    }
    // "fold-constants" is subsumed by "fold-constants,infer-shapes", and by the freeze that folds.
    std::erase_if(rest, [&](const std::string &part) {
        return freeze.find(part) != std::string::npos ||
               std::any_of(rest.begin(), rest.end(), [&](const std::string &other) {
                   return other != part && other.find(part) != std::string::npos;
               });
    });
    std::sort(rest.begin(), rest.end());
    rest.erase(std::unique(rest.begin(), rest.end()), rest.end());
    if (convert.empty())
        for (const support::Diagnostic &d : check.modelFindings)
            if (d.code == "opset-unsupported" && profile.opsets.contains("")) {
                const OpsetRange r = profile.opsets.at("");
                const int current = model.opsetVersion("").value_or(r.min);
                convert = "convert-opset{target=" + std::to_string(std::clamp(current, r.min, std::min(r.max, newestKnownOpset()))) + "}";
            }
    if (freeze.empty() && profile.dynamicShapes == DynamicShapes::Static)
        if (const FrozenInputs open = freezeOpenInputs(model, inputSizes); !open.text.empty())
            freeze = "freeze-shapes{input=" + open.text + "}";
    std::string pipeline;
    std::vector<std::string> parts{convert, freeze};
    parts.insert(parts.end(), rest.begin(), rest.end());
    parts.push_back(decomposeOps.empty() ? std::string() : "decompose{ops=" + decomposeOps + "}");
    for (const std::string &part : parts)
        if (!part.empty())
            pipeline += (pipeline.empty() ? "" : ",") + part;
    if (pipeline.empty())
        return std::nullopt;
    Fix fix;
    fix.kind = FixKind::Combined;
    fix.pipeline = pipeline;
    fix.summary = "every measured fix above, in one pipeline";
    return fix;
}

} // namespace

TargetCheck checkTarget(const ir::Model &model, const TargetProfile &profile, const CheckOptions &options)
{
    TargetCheck check;
    check.model = model.sourcePath;
    check.targetId = profile.id;
    check.targetName = profile.name;
    check.source = profile.source;
    check.dynamicShapes = profile.dynamicShapes;
    check.modelFindings = modelFindings(model, profile);
    ProblemScan scan = findProblems(model, profile);
    check.nodes = scan.nodes;
    check.groups = std::move(scan.groups);
    check.unsupportedNodes = unsupportedCount(check.groups);

    std::set<ir::NodeId> unsupported;
    for (const ProblemGroup &g : check.groups)
        for (const NodeProblem &p : g.nodes)
            unsupported.insert(p.node);
    check.partitions = partitionModel(model, unsupported);

    FixTrials trials(model, profile);
    for (ProblemGroup &g : check.groups) {
        g.fixes = candidateFixes(model, profile, g, check.partitions, options.inputSizes);
        if (options.tryFixes)
            for (Fix &f : g.fixes)
                if (!f.pipeline.empty())
                    trials.measure(f, g);
    }
    if (options.tryFixes && (check.unsupportedNodes > 0 || support::hasErrors(check.modelFindings)))
        if ((check.combined = combinedFix(check, model, profile, options.inputSizes)))
            trials.measureAll(*check.combined, check.unsupportedNodes);
    return check;
}

} // namespace portolan::diagnose
