// One extra run of B that keeps what the suspects' nodes read and wrote, then each node alone on
// the reference kernels.
#include "compare/KernelCheck.h"

#include "compare/CaptureObserver.h"

#include "runtime/TensorProtoIO.h"

#include <unordered_set>

namespace portolan::compare {

namespace {


bool hasSubgraphs(const ir::Node &node)
{
    for (const ir::Attribute &a : node.attributes)
        if (!a.subgraphs.empty())
            return true;
    return false;
}

std::string explain(KernelVerdict verdict, bool inputsPass)
{
    if (verdict == KernelVerdict::Unchecked)
        return "not re-run on the reference kernel";
    if (verdict == KernelVerdict::KernelDiffers)
        return inputsPass ? "introduced here: its kernel (or precision) differs from the reference kernel on the same inputs"
                          : "adds error of its own: its kernel differs from the reference kernel on the same inputs";
    return inputsPass ? "introduced by the graph: its kernel is right on its inputs, so the node computes something other "
                        "than the original (a rewrite to check)"
                      : "propagated: its kernel is right on its inputs, the error comes in with them";
}

} // namespace

support::Expected<std::vector<KernelCheck>> checkSuspectKernels(const RunSide &b, const runtime::NamedValues &feeds,
                                                                const std::vector<Suspect> &suspects,
                                                                const ComparisonOptions &options)
{
    const ir::Model &model = *b.model;
    std::unordered_set<std::uint32_t> wanted;
    for (const Suspect &s : suspects) {
        const ir::Value &value = model.value(s.tensor->inB);
        if (!value.producer.valid())
            continue;
        for (const ir::ValueId out : model.node(value.producer).outputs)
            if (out.valid())
                wanted.insert(out.index);
        for (const ir::ValueId in : model.node(value.producer).inputs)
            if (in.valid() && model.value(in).producer.valid())
                wanted.insert(in.index);
    }
    auto captured = captureValues(b, feeds, wanted);
    if (!captured)
        return captured.takeError();

    runtime::Interpreter reference(model);
    // a node alone is one rounding step (a fused one a few, in one kernel): the precision's first step
    // is what it may differ by, unless a tolerance was set
    const Tolerance stepTolerance = options.tolerance.value_or(options.precision.defaultTolerance(1));
    const double stepExplained = options.allowDrift ? options.precision.explainedError(1) : 0;
    std::vector<KernelCheck> checks;
    for (const Suspect &s : suspects) {
        KernelCheck check;
        check.suspect = &s;
        const ir::Value &value = model.value(s.tensor->inB);
        const ir::Node *node = value.producer.valid() ? &model.node(value.producer) : nullptr;
        std::vector<runtime::RuntimeValue> held; // graph inputs and weights the node reads
        std::vector<const runtime::RuntimeValue *> inputs;
        bool complete = node && !hasSubgraphs(*node) && !node->drawsRandomNumbers(); // a fresh draw proves nothing
        held.reserve(node ? node->inputs.size() : 0);
        for (std::size_t k = 0; complete && k < node->inputs.size(); ++k) {
            const ir::ValueId in = node->inputs[k];
            if (!in.valid()) {
                inputs.push_back(nullptr);
            } else if (const auto it = (*captured).find(in.index); it != (*captured).end()) {
                inputs.push_back(&it->second);
            } else if (model.value(in).isInitializer()) {
                auto tensor = runtime::tensorFromInitializer(model.value(in).initializer);
                if (!tensor)
                    return tensor.takeError();
                held.push_back(runtime::RuntimeValue::ofTensor(std::move(*tensor)));
                inputs.push_back(&held.back());
            } else if (const auto fed = std::find_if(feeds.begin(), feeds.end(), [&](const auto &f) { return f.first == model.value(in).name; });
                       fed != feeds.end()) {
                inputs.push_back(&fed->second);
            } else {
                complete = false;
            }
        }
        const auto produced = (*captured).find(s.tensor->inB.index);
        if (complete && produced != (*captured).end() && produced->second.isTensor()) {
            auto alone = reference.runNode(*node, inputs, {});
            std::size_t k = 0;
            while (k < node->outputs.size() && node->outputs[k] != s.tensor->inB)
                ++k;
            if (!alone)
                return alone.takeError();
            if (k < alone->size() && (*alone)[k].isTensor()) {
                const bool overridden = options.overrides.contains(s.tensor->name);
                const TensorMetrics m = compareTensors((*alone)[k].tensor, produced->second.tensor,
                                                       overridden ? s.tensor->tolerance : stepTolerance, false, options.epsilon);
                check.kernelError = normalizedError(m);
                check.verdict = judge(m, stepExplained, options.criteria).verdict == Verdict::Bug ? KernelVerdict::KernelDiffers
                                                                                                   : KernelVerdict::KernelAgrees;
            }
        }
        check.explanation = node && node->drawsRandomNumbers() ? "not re-run: a random op draws other values each time"
                                                               : explain(check.verdict, s.inputsPass);
        checks.push_back(std::move(check));
    }
    return checks;
}

std::vector<Suspect> bugSuspects(const std::vector<Suspect> &ranked)
{
    std::vector<Suspect> failing;
    for (const Suspect &s : ranked)
        if (s.tensor->verdict == Verdict::Bug)
            failing.push_back(s);
    return failing;
}

std::map<const Suspect *, KernelCheck> checksBySuspect(const std::vector<Suspect> &ranked, const std::vector<KernelCheck> &checks)
{
    std::map<const Suspect *, KernelCheck> bySuspect;
    for (std::size_t i = 0, j = 0; i < ranked.size() && j < checks.size(); ++i)
        if (ranked[i].tensor->verdict == Verdict::Bug)
            bySuspect[&ranked[i]] = checks[j++];
    return bySuspect;
}

} // namespace portolan::compare
