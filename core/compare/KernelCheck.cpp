// One extra run of B that keeps what the suspects' nodes read and wrote, then each node alone on
// the reference kernels.
#include "compare/KernelCheck.h"

#include "compare/CaptureObserver.h"

#include "runtime/TensorProtoIO.h"
#include "support/NumberText.h"

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

/// `precision` is empty when no drift is allowed (then any difference counts).
std::string explain(KernelVerdict verdict, bool inputsPass, const std::string &precision)
{
    if (verdict == KernelVerdict::Unchecked)
        return "not re-run on the reference kernel";
    const std::string past = precision.empty() ? "" : ", past what rounding at " + precision + " explains";
    if (verdict == KernelVerdict::KernelDiffers)
        return inputsPass ? "introduced here: its kernel differs from the reference kernel on the same inputs" + past
                          : "adds error of its own: its kernel differs from the reference kernel on the same inputs" + past;
    if (verdict == KernelVerdict::KernelRounds)
        return "rounds: its kernel differs from the reference kernel on the same inputs by no more than one rounding step at " +
               precision + " explains";
    return inputsPass ? "introduced by the graph: its kernel is right on its inputs, so the node computes something other "
                        "than the original (a rewrite to check)"
                      : "propagated: its kernel is right on its inputs, the error comes in with them";
}

} // namespace

const char *kernelVerdictName(KernelVerdict verdict)
{
    switch (verdict) {
    case KernelVerdict::KernelDiffers: return "kernel-differs";
    case KernelVerdict::KernelRounds: return "kernel-rounds";
    case KernelVerdict::KernelAgrees: return "kernel-agrees";
    case KernelVerdict::Unchecked: break;
    }
    return "unchecked";
}

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
    // a node alone rounds its inputs to the precision, its arithmetic and its output: three steps are
    // what its kernel may differ by (measured: up to 2 unit roundoffs for decoder_deep's fp16 MatMuls,
    // against the 6.9 three steps explain); the default tolerance of one step says it agrees
    constexpr int kNodeRoundings = 3;
    const Tolerance stepTolerance = options.tolerance.value_or(options.precision.defaultTolerance(1));
    const double stepExplained = options.allowDrift ? options.precision.explainedError(kNodeRoundings) : 0;
    std::vector<KernelCheck> checks;
    for (const Suspect &s : suspects) {
        KernelCheck check;
        check.tensor = s.tensor;
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
                switch (judge(m, stepExplained, options.criteria).verdict) {
                case Verdict::Equivalent: check.verdict = KernelVerdict::KernelAgrees; break;
                case Verdict::Drift: check.verdict = KernelVerdict::KernelRounds; break;
                case Verdict::Bug: check.verdict = KernelVerdict::KernelDiffers; break;
                }
            }
        }
        check.explanation = node && node->drawsRandomNumbers() ? "not re-run: a random op draws other values each time"
                                                               : explain(check.verdict, s.inputsPass,
                                                                         options.allowDrift ? options.precision.precision : "");
        checks.push_back(std::move(check));
    }
    return checks;
}

std::vector<Suspect> checkedSuspects(const std::vector<Suspect> &ranked)
{
    std::vector<Suspect> checked;
    for (const Suspect &s : ranked)
        if (s.tensor->failed())
            checked.push_back(s);
    return checked;
}

bool judgeOwnErrors(ComparisonResult &result, const std::vector<KernelCheck> &checks)
{
    bool changed = false;
    for (const KernelCheck &check : checks)
        for (ComparedTensor &t : result.tensors)
            if (&t == check.tensor && t.verdict == Verdict::Drift && check.verdict == KernelVerdict::KernelDiffers) {
                t.verdict = Verdict::Bug;
                t.verdictWhy += "; yet its node alone differs from the reference kernel on the same inputs by " +
                                support::shortNumber(check.kernelError) + " of the scale, past one rounding step: a bug";
                changed = true;
            }
    return changed;
}

support::Expected<JudgedSuspects> judgeSuspects(ComparisonResult &result, const RunSide &b, const runtime::NamedValues &feeds,
                                                const ComparisonOptions &options, std::size_t limit, bool check)
{
    JudgedSuspects judged;
    judged.suspects = rankSuspects(result, *b.model, limit);
    if (!check || result.outputsPassed())
        return judged;
    auto checks = checkSuspectKernels(b, feeds, checkedSuspects(judged.suspects), options);
    if (!checks)
        return checks.takeError();
    judged.checks = std::move(*checks);
    if (judgeOwnErrors(result, judged.checks))
        judged.suspects = rankSuspects(result, *b.model, limit);
    return judged;
}

std::map<const Suspect *, KernelCheck> checksBySuspect(const std::vector<Suspect> &ranked, const std::vector<KernelCheck> &checks)
{
    std::map<const Suspect *, KernelCheck> bySuspect;
    for (const Suspect &s : ranked)
        for (const KernelCheck &check : checks)
            if (check.tensor == s.tensor)
                bySuspect[&s] = check;
    return bySuspect;
}

} // namespace portolan::compare
