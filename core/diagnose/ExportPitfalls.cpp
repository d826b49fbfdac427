#include "diagnose/ExportPitfalls.h"

#include "analysis/ShapeInference.h"
#include "diagnose/ShapeOperands.h"
#include "passes/ConstantEvaluation.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace portolan::diagnose {

namespace {

using support::Severity;

std::string dimsText(const std::vector<std::int64_t> &dims)
{
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? "," : "") + std::to_string(dims[i]);
    return out + "]";
}

std::string joined(const std::vector<std::string> &items)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return out;
}

class Pitfalls {
public:
    Pitfalls(const ir::Model &model, const std::vector<TargetProfile> &targets)
        : m_model(model), m_targets(targets), m_shapes(model)
    {
        for (const ir::GraphId g : passes::liveGraphs(model)) {
            const ir::Graph &graph = model.graph(g);
            for (std::size_t i = 0; i < graph.nodes.size(); ++i)
                m_names[graph.nodes[i]] = model.node(graph.nodes[i]).displayName(i);
        }
    }

    support::Diagnostics run()
    {
        bakedShapes();
        std::map<std::string, std::vector<ir::NodeId>> leftovers, custom;
        for (const ir::GraphId g : passes::liveGraphs(m_model))
            for (const ir::NodeId n : passes::liveNodes(m_model, g)) {
                const ir::Node &node = m_model.node(n);
                if (isCustomDomain(node.domain)) {
                    custom[node.domain + ":" + node.opType].push_back(n);
                    continue;
                }
                if (!node.domain.empty())
                    continue;
                if (node.opType == "If")
                    constantCondition(node);
                else if (node.opType == "Loop")
                    constantTripCount(node);
                else if (node.opType == "BatchNormalization")
                    batchNormTraining(node);
                else if (node.opType == "Dropout" && !dropoutTraining(node))
                    leftovers["Dropout"].push_back(n);
                else if (node.opType == "Identity")
                    leftovers["Identity"].push_back(n);
            }
        for (const auto &[op, nodes] : leftovers)
            add(Severity::Info, "export-leftover", nodes.front(),
                std::to_string(nodes.size()) + " " + op + (nodes.size() == 1 ? " node" : " nodes") +
                    " left by the export (first: '" + m_names[nodes.front()] +
                    "'): they do nothing at inference; eliminate-identity removes them");
        for (const auto &[op, nodes] : custom)
            customOp(op, nodes);
        int64ShapeChains();
        opsetAheadOfTargets();
        return std::move(m_out);
    }

private:
    void add(Severity severity, const std::string &code, ir::NodeId n, std::string message, std::string value = {})
    {
        support::Diagnostic d;
        d.severity = severity;
        d.code = code;
        d.message = std::move(message);
        d.model = m_model.sourcePath;
        if (n.valid()) {
            d.graph = m_model.graph(m_model.node(n).graph).name;
            d.node = m_names[n];
        }
        d.value = std::move(value);
        m_out.push_back(std::move(d));
    }

    static bool isCustomDomain(const std::string &domain)
    {
        return !domain.empty() && domain != "ai.onnx" && domain != "ai.onnx.ml" && domain != "ai.onnx.preview.training";
    }

    // --- constant shapes that fit only the example ------------------------------------------------

    /// Infers the graph at two settings of its open input dims (2, then 3): a Reshape to a constant
    /// shape whose input's element count differs between them fails at one of them at least; so
    /// does an Expand to a constant dim > 1 where its input's dim varies.
    void bakedShapes()
    {
        std::map<std::string, std::vector<std::int64_t>> at2, at3;
        std::vector<std::string> symbols;
        for (const ir::ValueId v : m_model.graph(m_model.mainGraph()).inputs) {
            const ir::Value &value = m_model.value(v);
            const ir::Shape shape = value.shape();
            if (value.isInitializer() || !shape.rankKnown() || shape.isStatic())
                continue;
            std::vector<std::int64_t> a, b;
            for (const ir::Dim &d : *shape.dims) {
                a.push_back(d.isStatic() ? d.extent() : 2);
                b.push_back(d.isStatic() ? d.extent() : 3);
                if (!d.isStatic())
                    symbols.push_back(d.isSymbolic() ? "'" + d.symbol() + "'" : "the unnamed dim of '" + value.name + "'");
            }
            at2[value.name] = a;
            at3[value.name] = b;
        }
        if (at2.empty())
            return;
        std::sort(symbols.begin(), symbols.end());
        symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
        const std::string varied = joined(symbols);
        const auto first = analysis::inferShapesAt(m_model, at2);
        const auto second = analysis::inferShapesAt(m_model, at3);
        auto dimsAt = [&](const analysis::ShapeInferenceResult &r, ir::ValueId v) -> std::optional<std::vector<std::int64_t>> {
            const ir::Value &value = m_model.value(v);
            if (value.isInitializer())
                return std::nullopt;
            const auto it = r.types.find(value.name);
            if (it == r.types.end())
                return std::nullopt;
            return ir::tensorShape(it->second).staticDims();
        };
        for (const ir::NodeId n : passes::liveNodes(m_model, m_model.mainGraph())) {
            const ir::Node &node = m_model.node(n);
            if (!node.domain.empty() || (node.opType != "Reshape" && node.opType != "Expand") || node.inputs.size() < 2 ||
                !node.inputs[0].valid() || !node.inputs[1].valid())
                continue;
            const auto constant = passes::constantValue(m_model, node.inputs[1]);
            const auto target = constant ? passes::integerValues(*constant) : std::nullopt;
            const auto a = dimsAt(first, node.inputs[0]);
            const auto b = dimsAt(second, node.inputs[0]);
            if (!target || !a || !b || *a == *b)
                continue;
            const std::string input = m_model.value(node.inputs[0]).name;
            if (node.opType == "Reshape") {
                const bool fixed = std::all_of(target->begin(), target->end(), [](std::int64_t d) { return d > 0; });
                const auto countA = ir::elementCount(*a), countB = ir::elementCount(*b);
                if (fixed && countA && countB && *countA != *countB)
                    add(Severity::Warning, "baked-shape", n,
                        "reshapes to the constant " + dimsText(*target) + ", but its input '" + input + "' is " +
                            dimsText(*a) + " or " + dimsText(*b) + " as " + varied +
                            " varies: the export baked the example's shape in, so other sizes fail here (export "
                            "the shape computed from Shape, or with -1 for the open dim)",
                        m_model.value(node.inputs[1]).name);
                continue;
            }
            // Expand broadcasts right-aligned: a constant dim > 1 over an input dim that varies.
            for (std::size_t k = 0; k < target->size() && k < a->size(); ++k) {
                const std::size_t ta = target->size() - 1 - k, ia = a->size() - 1 - k;
                if ((*target)[ta] > 1 && (*a)[ia] != (*b)[ia]) {
                    add(Severity::Warning, "baked-shape", n,
                        "expands to the constant " + dimsText(*target) + ", but its input '" + input + "' has dim " +
                            std::to_string(ia) + " varying with " + varied + ": the export baked the example's size " +
                            std::to_string((*target)[ta]) + " in, so other sizes fail here",
                        m_model.value(node.inputs[1]).name);
                    break;
                }
            }
        }
    }

    // --- control flow fixed at the example's values ----------------------------------------------

    void constantCondition(const ir::Node &node)
    {
        if (node.inputs.empty() || !node.inputs[0].valid())
            return;
        const auto cond = passes::scalarConstant(m_model, node.inputs[0]);
        if (!cond)
            return;
        const bool taken = *cond != 0;
        add(Severity::Warning, "constant-if", node.id,
            std::string("its condition is the constant ") + (taken ? "true" : "false") +
                ": the export decided the branch on the example, so only " + (taken ? "then_branch" : "else_branch") +
                " ever runs; the other branch is dead, and a target without If must have the live one inlined",
            m_model.value(node.inputs[0]).name);
    }

    void constantTripCount(const ir::Node &node)
    {
        if (node.inputs.empty() || !node.inputs[0].valid())
            return;
        const auto trips = passes::scalarConstant(m_model, node.inputs[0]);
        if (!trips || *trips > static_cast<double>(kSmallTripCount) || *trips < 0)
            return;
        const auto count = static_cast<std::int64_t>(*trips);
        add(Severity::Warning, "constant-trip-count", node.id,
            "its trip count is the constant " + std::to_string(count) +
                ": a traced Python loop over the example's length runs " + std::to_string(count) +
                (count == 1 ? " time" : " times") + " whatever the input; export it with the length computed from "
                                                     "the input, or unroll it if the count is truly fixed",
            m_model.value(node.inputs[0]).name);
    }

    // --- training-mode nodes ---------------------------------------------------------------------

    void batchNormTraining(const ir::Node &node)
    {
        const int opset = passes::standardOpset(m_model);
        std::string why;
        if (opset >= 14 && passes::attrInt(node, "training_mode", 0) != 0)
            why = "training_mode is 1";
        else if (opset < 7 && passes::attrInt(node, "is_test", 0) == 0)
            why = "is_test is 0";
        else {
            std::size_t used = 0;
            for (std::size_t k = 1; k < node.outputs.size(); ++k)
                used += node.outputs[k].valid() && !m_model.value(node.outputs[k]).uses.empty();
            if (used > 0)
                why = "its running mean and variance outputs are read";
        }
        if (!why.empty())
            add(Severity::Warning, "training-mode", node.id,
                "exported in training mode (" + why +
                    "): it normalizes with the batch's own statistics, not the running ones, so outputs change with "
                    "the batch; re-export after model.eval()");
    }

    /// True (and a finding) for a Dropout that drops at run time.
    bool dropoutTraining(const ir::Node &node)
    {
        const int opset = passes::standardOpset(m_model);
        std::string why;
        if (opset >= 12 && node.inputs.size() >= 3 && node.inputs[2].valid()) {
            const auto training = passes::scalarConstant(m_model, node.inputs[2]);
            if (!training)
                why = "training_mode is computed at run time";
            else if (*training != 0)
                why = "training_mode is true";
        } else if (opset < 7 && passes::attrInt(node, "is_test", 0) == 0)
            why = "is_test is 0";
        if (why.empty())
            return false;
        add(Severity::Warning, "training-mode", node.id,
            "exported in training mode (" + why +
                "): it zeroes activations at random at inference; re-export after model.eval()");
        return true;
    }

    // --- custom domains, int64 shape arithmetic, opsets --------------------------------------------

    void customOp(const std::string &op, const std::vector<ir::NodeId> &nodes)
    {
        const ir::Node &node = m_model.node(nodes.front());
        std::vector<std::string> runners;
        for (const TargetProfile &t : m_targets)
            if (t.op(node.domain, node.opType))
                runners.push_back(t.id);
        add(Severity::Warning, "custom-domain", nodes.front(),
            std::to_string(nodes.size()) + " " + op + (nodes.size() == 1 ? " node" : " nodes") + " (first: '" +
                m_names[nodes.front()] + "'): an op outside the ONNX standard, which only runtimes implementing " +
                node.domain + " run" +
                (runners.empty() ? std::string(" (none of the shipped target profiles lists it)")
                                 : " (of the shipped target profiles: " + joined(runners) + ")") +
                "; elsewhere it needs a decomposition or a plugin");
    }

    /// Shape/Size of a tensor whose shape is open, computed on at run time until it becomes a dim:
    /// one finding for all such chains, at the first Shape node.
    void int64ShapeChains()
    {
        std::vector<std::string> without;
        for (const TargetProfile &t : m_targets)
            if (!t.dtypes.empty() &&
                std::find(t.dtypes.begin(), t.dtypes.end(), onnx::TensorProto_DataType_INT64) == t.dtypes.end())
                without.push_back(t.id);
        std::vector<ir::NodeId> starts;
        std::set<ir::NodeId> chains, readers;
        std::map<std::string, std::size_t> readerOps;
        for (const ir::NodeId n : passes::liveNodes(m_model, m_model.mainGraph())) {
            const ir::Node &node = m_model.node(n);
            if (!node.domain.empty() || (node.opType != "Shape" && node.opType != "Size") || node.inputs.empty() ||
                !node.inputs[0].valid() || node.outputs.empty() || !node.outputs[0].valid())
                continue;
            if (m_shapes.staticDims(node.inputs[0]))
                continue; // fold-constants turns it into a constant
            bool read = false;
            std::vector<ir::ValueId> frontier{node.outputs[0]};
            std::set<ir::NodeId> seen;
            while (!frontier.empty()) {
                const ir::ValueId v = frontier.back();
                frontier.pop_back();
                for (const ir::Use &use : m_model.value(v).uses) {
                    const ir::Node &consumer = m_model.node(use.node);
                    const auto operand = consumer.domain.empty() ? shapeOperand(consumer.opType) : std::nullopt;
                    if (operand && *operand == use.inputIndex) {
                        read = true;
                        if (readers.insert(use.node).second)
                            ++readerOps[consumer.opType];
                        continue;
                    }
                    if (!seen.insert(use.node).second)
                        continue;
                    for (const ir::ValueId out : consumer.outputs)
                        if (out.valid() && m_shapes.elementType(out) == onnx::TensorProto_DataType_INT64)
                            frontier.push_back(out);
                }
            }
            if (!read)
                continue;
            starts.push_back(n);
            chains.insert(seen.begin(), seen.end());
        }
        if (starts.empty())
            return;
        std::vector<std::string> ops;
        for (const auto &[op, count] : readerOps)
            ops.push_back(op + " ×" + std::to_string(count));
        add(Severity::Info, "int64-shape-chain", starts.front(),
            std::to_string(starts.size()) + " Shape/Size " + (starts.size() == 1 ? "node starts" : "nodes start") +
                " int64 shape arithmetic done at run time (" + std::to_string(chains.size() + starts.size()) +
                " nodes, first: '" + m_names[starts.front()] + "'), read as shapes by " + joined(ops) +
                (without.empty() ? std::string(": fine where int64 runs; freezing the input dims and fold-constants "
                                               "precompute it")
                                 : "; " + joined(without) + " have no int64: freeze the input dims and fold-constants "
                                                            "to precompute it"));
    }

    void opsetAheadOfTargets()
    {
        const int opset = passes::standardOpset(m_model);
        std::vector<std::string> behind;
        int reachable = opset;
        for (const TargetProfile &t : m_targets) {
            const auto range = t.opsets.find("");
            if (range == t.opsets.end() || range->second.max >= opset)
                continue;
            behind.push_back(t.id + " (≤ " + std::to_string(range->second.max) + ")");
            reachable = std::min(reachable, range->second.max);
        }
        if (behind.empty())
            return;
        add(Severity::Info, "opset-ahead-of-targets", {},
            "the model imports ai.onnx opset " + std::to_string(opset) + ", newer than " + joined(behind) +
                " accept; convert-opset{target=" + std::to_string(reachable) + "} moves it back where the ops allow");
    }

    const ir::Model &m_model;
    const std::vector<TargetProfile> &m_targets;
    passes::ShapeOracle m_shapes;
    std::unordered_map<ir::NodeId, std::string> m_names;
    support::Diagnostics m_out;
};

} // namespace

support::Diagnostics findExportPitfalls(const ir::Model &model, const std::vector<TargetProfile> &targets)
{
    return Pitfalls(model, targets).run();
}

} // namespace portolan::diagnose
