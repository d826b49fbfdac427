// findProblems: each node against its op's entry in the profile — op, opset, element types,
// constant inputs, attribute values, rank and static shapes — one problem per node and cause.
#include "diagnose/TargetCheck.h"

#include "analysis/OpSchemas.h"
#include "ir/Type.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace portolan::diagnose {

const char *causeKey(Cause cause)
{
    switch (cause) {
    case Cause::MissingOp: return "missing-op";
    case Cause::OpsetTooOld: return "opset-too-old";
    case Cause::OpsetTooNew: return "opset-too-new";
    case Cause::ElementType: return "element-type";
    case Cause::AttributeValue: return "attribute-value";
    case Cause::NonConstantInput: return "non-constant-input";
    case Cause::DynamicShape: return "dynamic-shape";
    case Cause::Rank: return "rank";
    }
    return "unknown";
}

const char *causeTitle(Cause cause)
{
    switch (cause) {
    case Cause::MissingOp: return "Op not supported";
    case Cause::OpsetTooOld: return "Opset too old for the target's version of the op";
    case Cause::OpsetTooNew: return "Opset too new for the target";
    case Cause::ElementType: return "Element type not supported";
    case Cause::AttributeValue: return "Attribute value not supported";
    case Cause::NonConstantInput: return "Input must be a constant";
    case Cause::DynamicShape: return "Dynamic shape where the target needs a static one";
    case Cause::Rank: return "Rank above the target's limit";
    }
    return "Unknown";
}

namespace {

std::string typeNames(const std::vector<int> &types)
{
    std::string out;
    for (const int t : types)
        out += (out.empty() ? "" : ", ") + ir::dataTypeName(t);
    return out;
}

std::string joined(const std::vector<std::string> &values)
{
    std::string out;
    for (const std::string &v : values)
        out += (out.empty() ? "" : ", ") + v;
    return out;
}

/// An attribute's elements as profile text and, where numeric, as numbers.
struct AttributeElements {
    std::vector<std::string> text;
    std::vector<std::optional<double>> number;
};

AttributeElements elementsOf(const onnx::AttributeProto &a)
{
    AttributeElements e;
    const auto addNumber = [&](double v) {
        e.text.push_back(attributeValueText(v));
        e.number.emplace_back(v);
    };
    const auto addText = [&](const std::string &s) {
        e.text.push_back(s);
        e.number.emplace_back();
    };
    switch (a.type()) {
    case onnx::AttributeProto::INT: addNumber(static_cast<double>(a.i())); break;
    case onnx::AttributeProto::FLOAT: addNumber(a.f()); break;
    case onnx::AttributeProto::STRING: addText(a.s()); break;
    case onnx::AttributeProto::INTS:
        for (const auto v : a.ints())
            addNumber(static_cast<double>(v));
        break;
    case onnx::AttributeProto::FLOATS:
        for (const float v : a.floats())
            addNumber(v);
        break;
    case onnx::AttributeProto::STRINGS:
        for (const std::string &s : a.strings())
            addText(s);
        break;
    default: break;
    }
    return e;
}

/// The node's attribute, else the schema's default at the node's opset (nullptr: neither).
const onnx::AttributeProto *attributeOrDefault(const ir::Node &node, const std::string &name, int opset)
{
    if (const ir::Attribute *a = node.attribute(name))
        return &a->proto;
    const onnx::OpSchema *schema = analysis::findSchema(node.opType, node.domain, opset);
    if (!schema)
        return nullptr;
    const auto it = schema->attributes().find(name);
    if (it == schema->attributes().end() || it->second.default_value.type() == onnx::AttributeProto::UNDEFINED)
        return nullptr;
    return &it->second.default_value;
}

/// Why `element` breaks `c`, or "" when it does not.
std::string attributeViolation(const std::string &name, const std::string &text, std::optional<double> number,
                               const AttributeConstraint &c)
{
    const std::string shown = name + " = " + (number ? text : "'" + text + "'");
    if (!c.in.empty() && std::find(c.in.begin(), c.in.end(), text) == c.in.end())
        return shown + " is not one of the supported values (" + joined(c.in) + ")";
    if (std::find(c.notIn.begin(), c.notIn.end(), text) != c.notIn.end())
        return shown + " is not supported";
    if (number && c.min && *number < *c.min)
        return shown + " is below the supported minimum " + attributeValueText(*c.min);
    if (number && c.max && *number > *c.max)
        return shown + " is above the supported maximum " + attributeValueText(*c.max);
    return {};
}

class NodeJudge {
public:
    NodeJudge(const ir::Model &model, const TargetProfile &profile) : m_model(model), m_profile(profile), m_shapes(model) {}

    void judge(const ir::Node &node, std::size_t indexInGraph)
    {
        m_node = &node;
        m_nodeName = node.displayName(indexInGraph);
        const OpSupport *op = m_profile.op(node.domain, node.opType);
        const int opset = m_model.opsetVersion(node.domain).value_or(0);
        if (!op) {
            std::string detail = m_profile.knowsDomain(node.domain)
                                     ? "the target does not list " + node.opType
                                     : "the target has no op of domain '" + node.domain + "'";
            if (m_profile.expandsFunctions) {
                const std::string lacking = opsMissingFromFunction(node.opType, node.domain, opset, 0);
                if (lacking.empty())
                    return; // expanded into ops the target has
                if (lacking != kNoFunction)
                    detail += "; ONNX defines it as a function, but its body uses " + lacking +
                              ", which the target lacks too";
            }
            add(Cause::MissingOp, std::move(detail));
            return;
        }
        m_op = op;
        if (op->opsets && opset > 0 && !op->opsets->contains(opset))
            add(opset < op->opsets->min ? Cause::OpsetTooOld : Cause::OpsetTooNew,
                node.opType + " at opset " + std::to_string(opset) + "; the target supports it at opset " +
                    op->opsets->str());
        checkElementTypes();
        checkConstantInputs();
        checkAttributes(opset);
        checkRanks();
        if (m_profile.dynamicShapes == DynamicShapes::Static || op->staticShapes)
            checkStaticShapes(op->staticShapes);
    }

    std::vector<ProblemGroup> groups()
    {
        std::vector<ProblemGroup> out;
        for (auto &[key, group] : m_groups)
            out.push_back(std::move(group));
        std::stable_sort(out.begin(), out.end(), [](const ProblemGroup &a, const ProblemGroup &b) {
            if (a.cause != b.cause)
                return a.cause < b.cause;
            return a.nodes.size() > b.nodes.size();
        });
        return out;
    }

private:
    static constexpr const char *kNoFunction = "(no function)";

    /// The ops of the schema's function body (nested functions expanded) the target lacks, comma-
    /// separated; kNoFunction when the op has no plain function body at that opset.
    std::string opsMissingFromFunction(const std::string &opType, const std::string &domain, int opset, int depth) const
    {
        const onnx::OpSchema *schema = analysis::findSchema(opType, domain, opset);
        if (!schema || !schema->HasFunction() || depth > 4)
            return kNoFunction;
        const onnx::FunctionProto *body = schema->GetFunction();
        if (!body)
            return kNoFunction;
        std::string lacking;
        for (const onnx::NodeProto &n : body->node()) {
            if (m_profile.op(n.domain(), n.op_type()) || (n.op_type() == "Constant" && n.domain().empty()))
                continue;
            const std::string inner = opsMissingFromFunction(n.op_type(), n.domain(), opset, depth + 1);
            const std::string missing = inner == kNoFunction ? n.op_type() : inner;
            if (!missing.empty() && lacking.find(missing) == std::string::npos)
                lacking += (lacking.empty() ? "" : ", ") + missing;
        }
        return lacking;
    }

    /// `anyOp`: the rule is the target's, not the op's, so nodes of every op type share one group.
    void add(Cause cause, std::string detail, std::string value = {}, bool anyOp = false)
    {
        const auto key = anyOp ? std::make_tuple(cause, std::string(), std::string())
                               : std::make_tuple(cause, m_node->domain, m_node->opType);
        auto [it, inserted] = m_groups.try_emplace(key);
        ProblemGroup &g = it->second;
        if (inserted) {
            g.cause = cause;
            g.domain = std::get<1>(key);
            g.opType = std::get<2>(key);
            if (const OpSupport *op = anyOp ? nullptr : m_profile.op(m_node->domain, m_node->opType))
                g.note = op->note;
        }
        g.nodes.push_back({m_node->id, graphName(), m_nodeName,
                           m_node->domain.empty() ? m_node->opType : m_node->domain + ":" + m_node->opType,
                           std::move(detail), std::move(value)});
    }

    std::string graphName() const
    {
        const ir::Graph &g = m_model.graph(m_node->graph);
        return g.isMain() ? "main" : g.name;
    }

    /// "input 1 'scales'" / "output 0 'y'".
    std::string tensorLabel(bool input, std::size_t index) const
    {
        const ir::ValueId v = input ? m_node->inputs[index] : m_node->outputs[index];
        return std::string(input ? "input " : "output ") + std::to_string(index) + " '" + m_model.value(v).name + "'";
    }

    /// Visits every present tensor input and output: f(isInput, index, value).
    template <typename F>
    void forEachTensor(F f) const
    {
        for (std::size_t i = 0; i < m_node->inputs.size(); ++i)
            if (m_node->inputs[i].valid())
                if (!f(true, i, m_node->inputs[i]))
                    return;
        for (std::size_t i = 0; i < m_node->outputs.size(); ++i)
            if (m_node->outputs[i].valid())
                if (!f(false, i, m_node->outputs[i]))
                    return;
    }

    void checkElementTypes()
    {
        forEachTensor([&](bool input, std::size_t i, ir::ValueId v) {
            const bool primary = input ? i == 0 : (i == 0 && m_node->inputs.empty());
            const std::vector<int> *allowed = &m_profile.dtypes;
            if (input) {
                if (const auto c = m_op->inputs.find(i); c != m_op->inputs.end() && !c->second.dtypes.empty())
                    allowed = &c->second.dtypes;
            }
            if (primary && !m_op->dtypes.empty() && allowed == &m_profile.dtypes)
                allowed = &m_op->dtypes;
            const int type = m_shapes.elementType(v);
            if (type == 0 || allowed->empty() || std::find(allowed->begin(), allowed->end(), type) != allowed->end())
                return true;
            const std::string scope = allowed == &m_profile.dtypes ? "the target" : m_node->opType + " on the target";
            add(Cause::ElementType,
                tensorLabel(input, i) + " is " + ir::dataTypeName(type) + "; " + scope + " takes " + typeNames(*allowed),
                m_model.value(v).name);
            return false; // one element-type problem per node is enough to act on
        });
    }

    void checkConstantInputs()
    {
        for (const auto &[index, c] : m_op->inputs) {
            if (!c.constant || index >= m_node->inputs.size() || !m_node->inputs[index].valid())
                continue;
            const ir::Value &v = m_model.value(m_node->inputs[index]);
            if (v.isInitializer() || (v.producer.valid() && m_model.node(v.producer).isConstant()))
                continue;
            std::string source = "a graph input";
            if (v.producer.valid()) {
                const ir::Node &p = m_model.node(v.producer);
                source = (p.name.empty() ? "an unnamed " + p.opType : "'" + p.name + "' (" + p.opType + ")");
            }
            add(Cause::NonConstantInput,
                tensorLabel(true, index) + " must be a constant on the target; it is computed by " + source,
                v.name);
        }
    }

    void checkAttributes(int opset)
    {
        for (const auto &[name, c] : m_op->attributes) {
            const onnx::AttributeProto *a = attributeOrDefault(*m_node, name, opset);
            if (!a)
                continue;
            const AttributeElements e = elementsOf(*a);
            for (std::size_t k = 0; k < e.text.size(); ++k)
                if (std::string why = attributeViolation(name, e.text[k], e.number[k], c); !why.empty()) {
                    add(Cause::AttributeValue, why + (m_node->attribute(name) ? "" : " (the default)"));
                    break;
                }
        }
    }

    void checkRanks()
    {
        const std::optional<int> limit = m_op->maxRank ? m_op->maxRank : m_profile.maxRank;
        if (!limit)
            return;
        forEachTensor([&](bool input, std::size_t i, ir::ValueId v) {
            const auto rank = m_shapes.rank(v);
            if (!rank || static_cast<int>(*rank) <= *limit)
                return true;
            add(Cause::Rank,
                tensorLabel(input, i) + " has rank " + std::to_string(*rank) + "; the target handles " +
                    (m_op->maxRank ? m_node->opType + " " : std::string()) + "up to rank " + std::to_string(*limit),
                m_model.value(v).name);
            return false;
        });
    }

    void checkStaticShapes(bool opRequires)
    {
        forEachTensor([&](bool input, std::size_t i, ir::ValueId v) {
            const ir::Value &value = m_model.value(v);
            if (value.isInitializer())
                return true;
            const auto type = m_shapes.type(v);
            if (type && !type->has_tensor_type())
                return true; // sequences and optionals: their shapes are not the point here
            const auto dims = m_shapes.dims(v);
            std::string why;
            if (!dims)
                why = " has an unknown shape";
            else
                for (const ir::Dim &d : *dims)
                    if (!d.isStatic()) {
                        why = " is " + ir::Shape{dims}.str() + ": dim '" + d.str() + "' is not fixed";
                        break;
                    }
            if (why.empty())
                return true;
            add(Cause::DynamicShape,
                tensorLabel(input, i) + why + (opRequires ? " (" + m_node->opType + " needs static shapes here)" : ""),
                value.name, !opRequires);
            return false;
        });
    }

    const ir::Model &m_model;
    const TargetProfile &m_profile;
    passes::ShapeOracle m_shapes;
    const ir::Node *m_node = nullptr;
    const OpSupport *m_op = nullptr;
    std::string m_nodeName;
    std::map<std::tuple<Cause, std::string, std::string>, ProblemGroup> m_groups;
};

} // namespace

ProblemScan findProblems(const ir::Model &model, const TargetProfile &profile)
{
    NodeJudge judge(model, profile);
    ProblemScan scan;
    for (const ir::GraphId g : passes::liveGraphs(model)) {
        const ir::Graph &graph = model.graph(g);
        std::size_t index = 0;
        for (const ir::NodeId n : graph.nodes) {
            const ir::Node &node = model.node(n);
            const std::size_t position = index++;
            if (node.alive && !node.isConstant()) {
                judge.judge(node, position);
                ++scan.nodes;
            }
        }
    }
    scan.groups = judge.groups();
    return scan;
}

} // namespace portolan::diagnose
