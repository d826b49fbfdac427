// Dynamic-shape analysis as a taint walk in graph order. Each value carries two sets of sources:
// those its *shape* depends on, and those its *values* depend on (Shape's output holds its input's
// dims, and whatever is computed from it). A node's output that is not static takes every source of
// its inputs, shapes and values alike (Reshape's target shape, Range's limit, Expand's dims); an op
// whose output size is data (NonZero, Unique, NonMaxSuppression, Compress, a Loop's scan outputs),
// or an output nothing upstream explains, is a source of its own.
#include "diagnose/DynamicShapes.h"
#include "diagnose/FreezeDims.h"

#include "analysis/ShapeInference.h"
#include "diagnose/ShapeOperands.h"
#include "diagnose/TargetFixes.h"
#include "ir/Topology.h"
#include "passes/FreezeShapes.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace portolan::diagnose {

const char *dimSourceKindKey(DimSourceKind kind)
{
    switch (kind) {
    case DimSourceKind::InputDim: return "input-dim";
    case DimSourceKind::DataDependent: return "data-dependent";
    case DimSourceKind::Uninferred: return "uninferred";
    }
    return "?";
}

const char *shapeAdviceKey(ShapeAdvice advice)
{
    switch (advice) {
    case ShapeAdvice::Freeze: return "freeze";
    case ShapeAdvice::Profile: return "profile";
    case ShapeAdvice::Bucket: return "bucket";
    case ShapeAdvice::Fold: return "fold";
    case ShapeAdvice::Pad: return "pad";
    case ShapeAdvice::Keep: return "keep";
    }
    return "?";
}

std::string DimSource::label() const
{
    if (kind != DimSourceKind::InputDim)
        return opType + " '" + node + "'";
    if (axis < 0)
        return "input '" + input + "' (rank unknown)";
    return "input '" + input + "' axis " + std::to_string(axis) + (symbol.empty() ? "" : " ('" + symbol + "')");
}

namespace {

using SourceSet = std::vector<std::size_t>; // sorted, unique

void unite(SourceSet &into, const SourceSet &from)
{
    if (from.empty())
        return;
    SourceSet merged;
    merged.reserve(into.size() + from.size());
    std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
    into = std::move(merged);
}

/// Why the output size of `op` is data, for the ops whose output size is data by definition.
std::optional<std::string> dataDependentReason(const std::string &opType)
{
    static const std::map<std::string, std::string> reasons = {
        {"NonZero", "its output length is the number of nonzero elements, known only from the data"},
        {"Unique", "its output length is the number of distinct values, known only from the data"},
        {"NonMaxSuppression", "the number of boxes it keeps is known only from the data"},
        {"Compress", "its output length is the number of true conditions, known only from the data"},
        {"StringSplit", "the number of pieces is known only from the data"},
    };
    const auto it = reasons.find(opType);
    return it == reasons.end() ? std::nullopt : std::optional<std::string>(it->second);
}

class Analysis {
public:
    Analysis(const ir::Model &model, const ShapeOptions &options,
             const std::map<std::string, std::vector<std::int64_t>> &frozen)
        : m_model(model), m_options(options), m_frozen(frozen)
    {
        m_types = frozen.empty() ? analysis::inferShapesLenient(model) : analysis::inferShapesAt(model, frozen);
        const ir::Graph &main = model.graph(model.mainGraph());
        for (std::size_t i = 0; i < main.nodes.size(); ++i)
            m_displayNames[main.nodes[i]] = model.node(main.nodes[i]).displayName(i);
    }

    ShapeAnalysis run()
    {
        ShapeAnalysis out;
        out.model = m_model.sourcePath;
        out.freeze = m_options.freeze;
        if (m_options.target) {
            out.targetId = m_options.target->id;
            out.targetName = m_options.target->name;
            out.targetShapes = m_options.target->dynamicShapes;
        }
        const ir::Graph &main = m_model.graph(m_model.mainGraph());
        for (const ir::ValueId v : main.inputs)
            visitInput(v);
        std::vector<ir::NodeId> order = main.nodes;
        if (auto sorted = ir::topologicalOrder(m_model, m_model.mainGraph()))
            order = std::move(*sorted);
        for (const ir::NodeId n : order)
            if (m_model.node(n).alive)
                visitNode(n);
        for (const ir::NodeId n : order)
            if (m_model.node(n).alive)
                recordReach(n);
        for (const ir::ValueId v : main.outputs)
            for (const std::size_t s : m_shapeTaint[v])
                m_sources[s].outputs.push_back(m_model.value(v).name);
        out.values = m_tensorValues;
        out.dynamicValues = std::move(m_dynamicValues);
        const FrozenInputs frozen = freezeOpenInputs(m_model, m_frozen);
        out.freezeAll = frozen.text;
        out.unsized = frozen.unsized;
        m_unsized = frozen.unsized;
        for (DimSource &s : m_sources)
            advise(s, out.freezeAll);
        out.sources = std::move(m_sources);
        return out;
    }

private:
    /// The type the analysis goes by: inferred (at the frozen dims, when given), else declared.
    std::optional<onnx::TypeProto> typeOf(ir::ValueId v) const
    {
        const ir::Value &value = m_model.value(v);
        if (value.isInitializer())
            return value.type();
        const auto it = m_types.types.find(value.name);
        if (it != m_types.types.end())
            return it->second;
        if (value.hasDeclaredType && m_frozen.empty())
            return value.type();
        return std::nullopt;
    }

    /// The shape, or nullopt for a value that is not a tensor (sequences, optionals: not judged).
    std::optional<ir::Shape> tensorShapeOf(ir::ValueId v) const
    {
        const auto type = typeOf(v);
        if (type && !type->has_tensor_type())
            return std::nullopt;
        return type ? ir::tensorShape(*type) : ir::Shape{};
    }

    /// `foldable`: a node source whose inputs are all constant.
    std::size_t addSource(DimSource source, bool foldable = false)
    {
        m_sources.push_back(std::move(source));
        m_foldable.push_back(foldable);
        return m_sources.size() - 1;
    }

    void visitInput(ir::ValueId v)
    {
        const ir::Value &value = m_model.value(v);
        if (value.isInitializer())
            return;
        const auto shape = tensorShapeOf(v);
        if (!shape)
            return;
        ++m_tensorValues;
        SourceSet taint;
        if (!shape->rankKnown()) {
            DimSource s;
            s.input = value.name;
            s.reason = "the input declares no shape";
            taint.push_back(addSource(std::move(s)));
        } else {
            for (std::size_t axis = 0; axis < shape->dims->size(); ++axis) {
                const ir::Dim &d = (*shape->dims)[axis];
                if (d.isStatic())
                    continue;
                DimSource s;
                s.input = value.name;
                s.axis = static_cast<std::int64_t>(axis);
                s.symbol = d.isSymbolic() ? d.symbol() : std::string();
                s.reason = d.isSymbolic() ? "a symbolic input dim" : "an input dim the model leaves unknown";
                taint.push_back(addSource(std::move(s)));
            }
        }
        if (!taint.empty())
            noteDynamic(v, *shape, "", "", taint);
        m_shapeTaint[v] = std::move(taint);
        m_isInput.insert(v);
    }

    bool isConstant(ir::ValueId v) const { return m_model.value(v).isInitializer() || m_constant.count(v); }

    void visitNode(ir::NodeId n)
    {
        const ir::Node &node = m_model.node(n);
        std::vector<ir::ValueId> inputs;
        for (const ir::ValueId v : node.inputs)
            if (v.valid())
                inputs.push_back(v);
        for (const ir::ValueId v : ir::capturedValues(m_model, n))
            inputs.push_back(v);

        SourceSet shapeIn, valueIn;
        bool allConstant = node.domain.empty() && node.opType != "RandomNormal" && node.opType != "RandomUniform" &&
                           node.opType.find("Random") == std::string::npos && node.opType != "Multinomial" &&
                           node.opType != "Bernoulli";
        bool inputRanksKnown = true;
        for (const ir::ValueId v : inputs) {
            unite(shapeIn, m_shapeTaint[v]);
            unite(valueIn, m_valueTaint[v]);
            allConstant = allConstant && isConstant(v);
            if (const auto shape = tensorShapeOf(v); shape && !shape->rankKnown())
                inputRanksKnown = false;
        }
        if (node.isConstant() || (allConstant && !inputs.empty()))
            for (const ir::ValueId v : node.outputs)
                if (v.valid())
                    m_constant.insert(v);

        std::optional<std::size_t> own; // this node as a source, made at most once
        auto ownSource = [&](DimSourceKind kind, std::string reason) {
            if (!own) {
                DimSource s;
                s.kind = kind;
                s.node = m_displayNames[n];
                s.opType = node.opType;
                s.reason = std::move(reason);
                own = addSource(std::move(s), allConstant && !inputs.empty());
            }
            return *own;
        };

        for (std::size_t k = 0; k < node.outputs.size(); ++k) {
            const ir::ValueId out = node.outputs[k];
            if (!out.valid())
                continue;
            const auto shape = tensorShapeOf(out);
            SourceSet taint;
            if (!shape) { // a sequence or optional: carries what it was made from, is not listed
                unite(taint, shapeIn);
                unite(taint, valueIn);
                m_shapeTaint[out] = taint;
                m_valueTaint[out] = valueIn;
                continue;
            }
            ++m_tensorValues;
            if (!shape->rankKnown() || !shape->isStatic()) {
                unite(taint, shapeIn);
                unite(taint, valueIn);
                if (auto reason = ownReason(node, k, *shape, taint.empty(), inputRanksKnown, allConstant)) {
                    const DimSourceKind kind = shape->rankKnown() || dataDependentReason(node.opType)
                                                   ? DimSourceKind::DataDependent
                                                   : DimSourceKind::Uninferred;
                    unite(taint, SourceSet{ownSource(kind, std::move(*reason))});
                }
                noteDynamic(out, *shape, m_displayNames[n], node.opType, taint);
            }
            m_shapeTaint[out] = taint;
            // Shape and Size hold their input's dims as values; anything else passes values along.
            if ((node.opType == "Shape" || node.opType == "Size") && node.domain.empty() && !node.inputs.empty() &&
                node.inputs[0].valid())
                m_valueTaint[out] = m_shapeTaint[node.inputs[0]];
            else
                m_valueTaint[out] = valueIn;
        }
    }

    /// Why output `k` of `node` is a source of its own, or nullopt when its inputs explain it.
    std::optional<std::string> ownReason(const ir::Node &node, std::size_t k, const ir::Shape &shape, bool unexplained,
                                         bool inputRanksKnown, bool allConstant) const
    {
        if (node.domain.empty()) {
            if (auto reason = dataDependentReason(node.opType))
                return reason;
            if (node.opType == "Loop")
                return loopReason(node);
        }
        if (!shape.rankKnown() && inputRanksKnown)
            return std::string("ONNX shape inference cannot type its output") +
                   (allConstant ? " (its inputs are all constant)" : "");
        if (!unexplained)
            return std::nullopt;
        if (node.domain.empty() && node.opType == "If")
            return std::string("its branches give outputs of different shapes");
        if (node.domain.empty())
            if (const auto operand = shapeOperand(node.opType); operand && *operand < node.inputs.size() &&
                                                               node.inputs[*operand].valid()) {
                const ir::Value &v = m_model.value(node.inputs[*operand]);
                return "its output shape is read from the values of '" + v.name + "'" +
                       (allConstant ? ", which are constant but not folded"
                        : m_isInput.count(v.id) ? ", a graph input"
                                                : ", computed at run time");
            }
        if (!shape.rankKnown())
            return std::string("ONNX shape inference cannot type its output");
        return std::string("ONNX shape inference leaves its output dims unknown") +
               (allConstant ? " (its inputs are all constant)" : "");
    }

    /// Which of a Loop's outputs are open: the scan outputs (past the N = inputs - 2 carried ones) grow
    /// with the trip count; carried values may change shape between iterations.
    std::string loopReason(const ir::Node &loop) const
    {
        bool scanOpen = false, carriedOpen = false;
        for (std::size_t k = 0; k < loop.outputs.size(); ++k) {
            if (!loop.outputs[k].valid())
                continue;
            const auto shape = tensorShapeOf(loop.outputs[k]);
            if (shape && (!shape->rankKnown() || !shape->isStatic()))
                (k + 2 >= loop.inputs.size() ? scanOpen : carriedOpen) = true;
        }
        std::string reason;
        if (scanOpen)
            reason = "its scan outputs stack one slice per iteration: their length is the trip count";
        if (carriedOpen)
            reason += (reason.empty() ? "its" : "; its") + std::string(" carried values may change shape between iterations");
        return reason;
    }

    void noteDynamic(ir::ValueId v, const ir::Shape &shape, const std::string &producer, const std::string &opType,
                     const SourceSet &taint)
    {
        DynamicValue d;
        d.name = m_model.value(v).name;
        d.shape = shape.str();
        d.producer = producer;
        d.opType = opType;
        d.sources = taint;
        for (const std::size_t s : taint) {
            DimSource &source = m_sources[s];
            ++source.valuesReached;
            if (source.kind == DimSourceKind::InputDim && !source.symbol.empty() && shape.dims &&
                std::any_of(shape.dims->begin(), shape.dims->end(),
                            [&](const ir::Dim &dim) { return dim.isSymbolic() && dim.symbol() == source.symbol; }))
                ++source.namedValues;
        }
        m_dynamicValues.push_back(std::move(d));
    }

    /// Adds `n` to the reach of every source of a value it reads or writes.
    void recordReach(ir::NodeId n)
    {
        const ir::Node &node = m_model.node(n);
        SourceSet touched;
        for (const ir::ValueId v : node.inputs)
            if (v.valid())
                unite(touched, m_shapeTaint[v]);
        for (const ir::ValueId v : node.outputs)
            if (v.valid())
                unite(touched, m_shapeTaint[v]);
        if (touched.empty())
            return;
        const bool needsStatic = needsStaticShapes(node);
        for (const std::size_t s : touched) {
            m_sources[s].nodesReached.push_back(m_displayNames[n]);
            if (needsStatic)
                m_sources[s].staticNodes.push_back(m_displayNames[n]);
        }
    }

    bool needsStaticShapes(const ir::Node &node) const
    {
        if (!m_options.target || node.isConstant())
            return false;
        if (m_options.target->dynamicShapes == DynamicShapes::Static)
            return true;
        const OpSupport *op = m_options.target->op(node.domain, node.opType);
        return op && op->staticShapes;
    }

    void advise(DimSource &s, const std::string &freezeAll) const
    {
        const std::string target = m_options.target ? m_options.target->name : std::string();
        const bool needsStatic = !s.staticNodes.empty();
        const std::string staticCount = needsStatic ? target + " needs static shapes at " +
                                                          counted(s.staticNodes.size(), "node") + " it reaches"
                                                    : std::string();
        if (s.kind == DimSourceKind::InputDim) {
            if (s.axis < 0) {
                s.advice = {ShapeAdvice::Freeze};
                s.suggestion = "declare the input's shape, or give its dims to freeze-shapes";
                return;
            }
            const std::string freezeText = inputFreezeText(s.input, freezeAll);
            s.pipeline = "freeze-shapes{input=" + freezeText + "},fold-constants";
            // the pipeline runs as it is; where a size was not known, the advice says which 1s to replace
            FrozenInputs own;
            for (const std::string &dim : m_unsized)
                if (dim.starts_with(s.input + " axis "))
                    own.unsized.push_back(dim);
            const std::string sizes = own.unsized.empty() ? std::string()
                                                           : "; " + unsizedNote(own) + ": give the sizes you run at with -i "
                                                                                   "NAME=DIMS or --inputs DIR";
            const bool batchLike = s.axis == 0;
            if (needsStatic) {
                s.advice = {ShapeAdvice::Freeze};
                if (!batchLike)
                    s.advice.push_back(ShapeAdvice::Bucket);
                s.suggestion = staticCount + ": freeze it (" + s.pipeline + sizes + ")" +
                               (batchLike ? std::string()
                                          : "; if it varies at run time, compile one model per bucket of sizes and pad "
                                            "each input up to the next bucket");
            } else if (m_options.target && m_options.target->dynamicShapes == DynamicShapes::Profile) {
                s.advice = {ShapeAdvice::Profile, ShapeAdvice::Freeze};
                s.suggestion = target + " builds it from an optimization profile: give min, opt and max for axis " +
                               std::to_string(s.axis) + " of '" + s.input + "' (e.g. trtexec --minShapes=" +
                               freezeText + " --optShapes=… --maxShapes=…); or freeze it (" + s.pipeline + sizes + ")";
            } else if (m_options.target) {
                s.advice = {ShapeAdvice::Keep};
                s.suggestion = target + " takes it dynamic; nothing to do";
            } else {
                s.advice = {ShapeAdvice::Keep, ShapeAdvice::Freeze};
                s.suggestion = "fine where dynamic shapes are; a static-shape target (--target) needs it frozen (" +
                               s.pipeline + sizes + ")";
            }
            return;
        }
        if (m_foldable[static_cast<std::size_t>(&s - m_sources.data())]) {
            s.advice = {ShapeAdvice::Fold};
            s.pipeline = "fold-constants";
            s.suggestion = "its inputs are all constant: fold-constants computes it before the run";
            return;
        }
        if (!needsStatic) {
            s.advice = {ShapeAdvice::Keep};
            s.suggestion = m_options.target ? target + " takes data-dependent shapes here; nothing to do"
                                            : "fine where dynamic shapes are; a static-shape target cannot compile it "
                                              "as it is (--target tells)";
            return;
        }
        s.advice = {ShapeAdvice::Pad};
        s.suggestion = staticCount + ": " + boundingTip(s.opType) +
                       ", or run it outside the target (a fallback partition)";
    }

    static std::string boundingTip(const std::string &opType)
    {
        if (opType == "NonZero" || opType == "Compress")
            return "give it a fixed size: a mask (Where over the whole tensor) or TopK with a fixed K instead";
        if (opType == "NonMaxSuppression")
            return "pad its output to max_output_boxes_per_class boxes per class, with a valid-count beside it";
        if (opType == "Unique")
            return "pad its output to the input's size, with a count beside it";
        if (opType == "Loop")
            return "unroll it at a fixed trip count";
        return "bound the size (pad to a maximum)";
    }

    static std::string inputFreezeText(const std::string &input, const std::string &freezeAll)
    {
        std::size_t start = 0;
        while (start < freezeAll.size()) {
            const std::size_t end = std::min(freezeAll.find(',', start), freezeAll.size());
            const std::string piece = freezeAll.substr(start, end - start);
            if (piece.compare(0, input.size() + 1, input + ":") == 0)
                return piece;
            start = end + 1;
        }
        return input + ":1";
    }

    const ir::Model &m_model;
    const ShapeOptions &m_options;
    const std::map<std::string, std::vector<std::int64_t>> &m_frozen;
    std::vector<std::string> m_unsized; ///< the open dims no given size told (FrozenInputs::unsized)
    analysis::ShapeInferenceResult m_types;
    std::unordered_map<ir::NodeId, std::string> m_displayNames;
    std::unordered_map<ir::ValueId, SourceSet> m_shapeTaint, m_valueTaint;
    std::set<ir::ValueId> m_constant, m_isInput;
    std::vector<DimSource> m_sources;
    std::vector<bool> m_foldable; ///< per source
    std::vector<DynamicValue> m_dynamicValues;
    std::size_t m_tensorValues = 0;
};

} // namespace

support::Expected<ShapeAnalysis> analyzeShapes(const ir::Model &model, const ShapeOptions &options)
{
    std::map<std::string, std::vector<std::int64_t>> frozen;
    if (!options.freeze.empty()) {
        auto dims = passes::frozenInputShapes(model, options.freeze);
        if (!dims)
            return dims.error();
        frozen = std::move(*dims);
    }
    return Analysis(model, options, frozen).run();
}

} // namespace portolan::diagnose
