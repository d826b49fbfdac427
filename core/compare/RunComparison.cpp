// The two-run comparison: A's aligned tensors into a TensorStore, B's compared as they appear.
#include "compare/RunComparison.h"
#include "compare/RoundingDepth.h"

#include "compare/TensorStore.h"

#include <chrono>
#include <cmath>
#include <unordered_set>

namespace portolan::compare {

RunSide RunSide::of(std::string label, const ir::Model &model, std::shared_ptr<runtime::Executor> executor, Remake remake)
{
    RunSide side{std::move(label), &model,
                 [executor](const runtime::NamedValues &f, const runtime::RunOptions &o) { return executor->run(f, o); }};
    if (remake)
        side.runModel = [remake](const ir::Model &other, const runtime::NamedValues &f) -> support::Expected<runtime::NamedValues> {
            auto again = remake(other);
            if (!again)
                return again.takeError();
            return (*again)->run(f, {});
        };
    return side;
}

using support::makeError;

namespace {

/// Both runs' main-graph nodes finished so far, as the permille ComparisonOptions::progress holds.
class Progress {
public:
    Progress(std::atomic<int> *out, const ir::Model &a, const ir::Model &b)
        : m_out(out), m_modelA(a), m_modelB(b), m_totalA(mainNodes(a)), m_totalB(mainNodes(b))
    {
        publish();
    }
    void nodeOfA(const ir::Node &node) { count(node.graph == m_modelA.mainGraph(), m_doneA, m_totalA); }
    void nodeOfB(const ir::Node &node) { count(node.graph == m_modelB.mainGraph(), m_doneB, m_totalB); }
    /// A run is over: whatever it did not report node by node (an imported run's) counts as done.
    void finishedA() { m_doneA = m_totalA; publish(); }
    void finishedB() { m_doneB = m_totalB; publish(); }

private:
    static std::int64_t mainNodes(const ir::Model &model)
    {
        std::int64_t n = 0;
        for (const ir::NodeId id : model.graph(model.mainGraph()).nodes)
            n += model.node(id).alive;
        return n;
    }
    void count(bool main, std::int64_t &done, std::int64_t total)
    {
        if (main && done < total) {
            ++done;
            publish();
        }
    }
    void publish()
    {
        const std::int64_t total = m_totalA + m_totalB;
        if (m_out)
            m_out->store(total > 0 ? static_cast<int>((m_doneA + m_doneB) * 1000 / total) : 0, std::memory_order_relaxed);
    }

    std::atomic<int> *m_out;
    const ir::Model &m_modelA, &m_modelB;
    std::int64_t m_totalA, m_totalB, m_doneA = 0, m_doneB = 0;
};

/// Run A: keeps every aligned value's tensor, until B has compared all its readers.
class KeepObserver final : public runtime::RunObserver {
public:
    KeepObserver(const std::unordered_map<std::uint32_t, int> &wanted, TensorStore &store, Progress &progress)
        : m_wanted(wanted), m_store(store), m_progress(progress)
    {
    }

    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        m_progress.nodeOfA(node);
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k)
            if (node.outputs[k].valid() && outputs[k].isTensor() && m_wanted.contains(node.outputs[k].index) && m_error.empty())
                if (auto st = m_store.put(node.outputs[k].index, outputs[k].tensor); !st)
                    m_error = st.error().format();
    }
    bool wantsOutput(const ir::Node &node, std::size_t k) const override
    {
        return k < node.outputs.size() && node.outputs[k].valid() && m_wanted.contains(node.outputs[k].index);
    }
    const std::string &error() const { return m_error; }

private:
    const std::unordered_map<std::uint32_t, int> &m_wanted;
    TensorStore &m_store;
    Progress &m_progress;
    std::string m_error;
};

using Depths = std::unordered_map<ir::ValueId, int>;

/// A compared tensor's identity before its metrics: the names, B's producer, its depth in A and the
/// tolerance and error its precision allows there.
ComparedTensor comparedPair(const ir::Model &a, const ir::Model &b, ir::ValueId va, ir::ValueId vb, bool output,
                            const ComparisonOptions &options, const Depths &depths)
{
    ComparedTensor c;
    c.name = a.value(va).name;
    c.nameInB = b.value(vb).name;
    c.inA = va;
    c.inB = vb;
    if (const ir::NodeId producer = b.value(vb).producer; producer.valid()) {
        c.node = displayNameOf(b.node(producer));
        c.opType = b.node(producer).opType;
    }
    c.output = output;
    const auto depth = depths.find(va);
    c.depth = depth != depths.end() ? depth->second : 0;
    const auto override = options.overrides.find(c.name);
    if (override != options.overrides.end()) {
        c.tolerance = override->second;
    } else {
        c.tolerance = options.tolerance.value_or(options.precision.defaultTolerance(c.depth));
        c.tolerance.quantile = options.quantile;
    }
    c.explainedError = options.allowDrift ? options.precision.explainedError(c.depth) : 0;
    return c;
}

/// Sets a compared tensor's metrics and judges them.
void setMetrics(ComparedTensor &c, TensorMetrics metrics, const ComparisonOptions &options)
{
    c.metrics = std::move(metrics);
    Judgement judgement = judge(c.metrics, c.explainedError, options.criteria);
    c.verdict = judgement.verdict;
    c.verdictWhy = std::move(judgement.why);
}

/// Run B: compares each aligned output as it appears and releases A's copy after its last B reader.
class CompareObserver final : public runtime::RunObserver {
public:
    CompareObserver(const ir::Model &a, const ir::Model &b, const Alignment &alignment, std::unordered_map<std::uint32_t, int> &remaining,
                    TensorStore &store, const ComparisonOptions &options, const Depths &depths, ComparisonResult &result,
                    Progress &progress)
        : m_a(a), m_b(b), m_alignment(alignment), m_remaining(remaining), m_store(store), m_options(options), m_depths(depths),
          m_result(result), m_progress(progress)
    {
        for (const ir::ValueId out : b.graph(b.mainGraph()).outputs)
            m_outputs.insert(out.index);
    }

    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        nodeFinishedInLayouts(node, outputs, {});
    }
    bool readsPhysicalLayouts() const override { return true; } // the metrics read a blocked layout as it is
    bool wantsOutput(const ir::Node &node, std::size_t k) const override
    {
        return node.graph == m_b.mainGraph() && k < node.outputs.size() && node.outputs[k].valid() &&
               m_alignment.contains(node.outputs[k]);
    }
    void nodeFinishedInLayouts(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs,
                               std::span<const runtime::PhysicalLayout *const> layouts) override
    {
        m_progress.nodeOfB(node);
        if (node.graph != m_b.mainGraph() || !m_error.empty())
            return;
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
            const ir::ValueId vb = node.outputs[k];
            const auto aligned = vb.valid() ? m_alignment.find(vb) : m_alignment.end();
            if (aligned == m_alignment.end() || !outputs[k].isTensor() || !outputs[k].tensor.defined())
                continue;
            const ir::ValueId va = aligned->second;
            auto kept = m_store.get(va.index);
            if (!kept) {
                m_error = kept.error().format();
                return;
            }
            ComparedTensor c = comparedPair(m_a, m_b, va, vb, m_outputs.contains(vb.index), m_options, m_depths);
            if (!*kept) {
                m_result.notCompared.push_back(c.name + ": run " + m_result.labelA + " did not produce it");
                continue;
            }
            setMetrics(c, compareTensors(**kept, outputs[k].tensor, c.tolerance, c.output, m_options.epsilon,
                                         k < layouts.size() ? layouts[k] : nullptr), m_options);
            m_result.tensors.push_back(std::move(c));
            if (--m_remaining[va.index] == 0)
                m_store.drop(va.index);
        }
    }
    bool keepsOutputs() const override { return false; } // metrics are taken during the call
    const std::string &error() const { return m_error; }

private:
    const ir::Model &m_a, &m_b;
    const Alignment &m_alignment;
    std::unordered_map<std::uint32_t, int> &m_remaining;
    TensorStore &m_store;
    const ComparisonOptions &m_options;
    const Depths &m_depths;
    ComparisonResult &m_result;
    Progress &m_progress;
    std::unordered_set<std::uint32_t> m_outputs;
    std::string m_error;
};

template <typename F>
double timed(F &&f)
{
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

namespace {

/// Calls f on every value of `model`'s main graph that a node computes (not inputs or weights).
template <typename F>
void forEachComputedValue(const ir::Model &model, F f)
{
    for (std::size_t i = 0; i < model.valueCapacity(); ++i) {
        const ir::ValueId v(static_cast<std::uint32_t>(i));
        const ir::Value &value = model.value(v);
        if (value.graph == model.mainGraph() && !value.isInitializer() && value.producer.valid())
            f(v, value);
    }
}

} // namespace

std::string displayNameOf(const ir::Node &node)
{
    return node.name.empty() ? "(" + node.opType + ")" : node.name;
}

std::string producerWithOp(const std::string &node, const std::string &opType)
{
    const bool named = node.ends_with(opType) && (node.size() == opType.size() || node[node.size() - opType.size() - 1] == '/');
    return named || node == "(" + opType + ")" ? node : node + " (" + opType + ")";
}

Alignment alignByProvenance(const ir::Model &a, const ir::Model &b, const passes::Provenance &provenance)
{
    Alignment alignment;
    forEachComputedValue(b, [&](ir::ValueId vb, const ir::Value &) {
        const ir::ValueId va = provenance.originalValueOf(vb);
        if (va.valid() && va.index < a.valueCapacity() && a.value(va).graph == a.mainGraph() && a.value(va).producer.valid())
            alignment[vb] = va;
    });
    return alignment;
}

Alignment alignByName(const ir::Model &a, const ir::Model &b)
{
    Alignment alignment;
    forEachComputedValue(b, [&](ir::ValueId vb, const ir::Value &value) {
        if (const auto va = a.lookup(a.mainGraph(), value.name); va && a.value(*va).producer.valid())
            alignment[vb] = *va;
    });
    return alignment;
}

std::vector<const ComparedTensor *> ComparisonResult::outputs() const
{
    std::vector<const ComparedTensor *> found;
    for (const ComparedTensor &t : tensors)
        if (t.output)
            found.push_back(&t);
    return found;
}

bool ComparisonResult::outputsPassed() const
{
    for (const ComparedTensor *t : outputs())
        if (!t->metrics.passed || !t->metrics.mismatch.empty())
            return false;
    return !outputs().empty();
}

Verdict ComparisonResult::outputsVerdict() const
{
    Verdict worst = Verdict::Equivalent;
    for (const ComparedTensor *t : outputs())
        worst = std::max(worst, t->verdict);
    return worst;
}

namespace {

const runtime::RuntimeValue *named(const runtime::NamedValues &values, const std::string &name)
{
    for (const auto &[n, v] : values)
        if (n == name)
            return &v;
    return nullptr;
}

const char *kindName(const runtime::RuntimeValue &value)
{
    switch (value.kind) {
    case runtime::RuntimeValue::Kind::Tensor: return "tensor";
    case runtime::RuntimeValue::Kind::Sequence: return "sequence";
    case runtime::RuntimeValue::Kind::EmptyOptional: return "empty optional";
    }
    return "value";
}

/// The graph outputs the observers do not see as tensors, from the runs' final values: a sequence
/// element by element ("name[i]"), an empty optional as a match with another empty one.
void compareNonTensorOutputs(const RunSide &a, const RunSide &b, const Alignment &alignment, const runtime::NamedValues &outA,
                             const runtime::NamedValues &outB, const ComparisonOptions &options, const Depths &depths,
                             ComparisonResult &result)
{
    const ir::Model &ma = *a.model, &mb = *b.model;
    for (const ir::ValueId vb : mb.graph(mb.mainGraph()).outputs) {
        const auto aligned = alignment.find(vb);
        if (aligned == alignment.end())
            continue;
        const runtime::RuntimeValue *valueA = named(outA, ma.value(aligned->second).name), *valueB = named(outB, mb.value(vb).name);
        if (!valueA || !valueB || (valueA->isTensor() && valueB->isTensor()))
            continue;
        const ComparedTensor base = comparedPair(ma, mb, aligned->second, vb, true, options, depths);
        auto add = [&](const std::string &suffix, TensorMetrics metrics) {
            ComparedTensor c = base;
            c.name += suffix;
            c.nameInB += suffix;
            setMetrics(c, std::move(metrics), options);
            result.tensors.push_back(std::move(c));
        };
        TensorMetrics whole;
        if (valueA->kind != valueB->kind) {
            whole.mismatch = std::string("a ") + kindName(*valueA) + " against a " + kindName(*valueB);
            add("", whole);
        } else if (valueA->kind == runtime::RuntimeValue::Kind::EmptyOptional) {
            whole.passed = true;
            add("", whole);
        } else if (valueA->sequence.size() != valueB->sequence.size()) {
            whole.mismatch = "sequences of " + std::to_string(valueA->sequence.size()) + " and " +
                             std::to_string(valueB->sequence.size()) + " tensors";
            add("", whole);
        } else if (valueA->sequence.empty()) {
            whole.passed = true;
            add("", whole);
        } else {
            for (std::size_t i = 0; i < valueA->sequence.size(); ++i)
                add("[" + std::to_string(i) + "]", compareTensors(valueA->sequence[i], valueB->sequence[i], base.tolerance,
                                                                  false, options.epsilon));
        }
    }
}

} // namespace

support::Expected<ComparisonResult> compareRuns(const RunSide &a, const RunSide &b, const Alignment &alignment,
                                                const runtime::NamedValues &feeds, const ComparisonOptions &options)
{
    ComparisonResult result;
    result.labelA = a.label;
    result.labelB = b.label;
    result.alignedValues = alignment.size();
    if (alignment.empty())
        return makeError("nothing-to-compare", "no tensor of run " + b.label + " corresponds to one of run " + a.label,
                         b.model->sourcePath);
    std::unordered_map<std::uint32_t, int> readers; // per A value: the B values compared against it
    for (const auto &[vb, va] : alignment)
        ++readers[va.index];
    TensorStore store(options.memoryBudget ? options.memoryBudget : runtime::defaultMaxMemory() / 2);

    Progress progress(options.progress, *a.model, *b.model);
    KeepObserver keep(readers, store, progress);
    runtime::RunOptions runA;
    runA.observer = &keep;
    runA.cancel = options.cancel;
    support::Expected<runtime::NamedValues> outA = runtime::NamedValues{};
    result.secondsA = timed([&] { outA = a.run(feeds, runA); });
    if (!outA)
        return makeError(outA.error().primary.code, "run " + a.label + ": " + outA.error().format(), a.model->sourcePath);
    if (!keep.error().empty())
        return makeError("io", keep.error(), a.model->sourcePath);
    progress.finishedA();

    const Depths depths = roundingDepths(*a.model);
    CompareObserver compare(*a.model, *b.model, alignment, readers, store, options, depths, result, progress);
    runtime::RunOptions runB;
    runB.observer = &compare;
    runB.cancel = options.cancel;
    support::Expected<runtime::NamedValues> outB = runtime::NamedValues{};
    result.secondsB = timed([&] { outB = b.run(feeds, runB); });
    if (!outB)
        return makeError(outB.error().primary.code, "run " + b.label + ": " + outB.error().format(), b.model->sourcePath);
    if (!compare.error().empty())
        return makeError("io", compare.error(), b.model->sourcePath);
    progress.finishedB();
    compareNonTensorOutputs(a, b, alignment, *outA, *outB, options, depths, result);
    result.peakHeldBytes = store.peakHeldBytes();
    result.spilledBytes = store.spilledBytes();
    if (result.tensors.empty())
        return makeError("nothing-to-compare", "the runs produced no tensor to compare", b.model->sourcePath);
    return result;
}

} // namespace portolan::compare
