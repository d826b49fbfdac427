// canonicalize's canonical-forms step (the patterns' Before/After are in Canonicalize.cpp).
#include "passes/CanonicalForms.h"

#include "analysis/OpSchemas.h"
#include "passes/ConstantEvaluation.h"
#include "passes/Match.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string_view>

namespace portolan::passes {

bool CanonicalizeRounds::begin(const std::string &pattern)
{
    m_budgetSpent = m_budgetSpent || !m_cx.rewriter.begin(pattern);
    return !m_budgetSpent;
}

void CanonicalizeRounds::decline(ir::NodeId node, const std::string &pattern, const std::string &reason)
{
    if (m_reported.emplace(node.index, pattern).second)
        m_cx.rewriter.notifyMatchFailure(node, pattern, reason);
}

namespace {

using Dims = std::vector<std::int64_t>;

constexpr const char *kDropDefaults = "drop-default-attributes";
constexpr const char *kNonNegativeAxes = "non-negative-axes";
constexpr const char *kExplicitPerm = "explicit-transpose-perm";
constexpr const char *kClipBounds = "drop-infinite-clip-bounds";

/// A node of the standard domain (ai.onnx).
bool isStandard(const ir::Node &node)
{
    return isOp(node, node.opType);
}

/// Whether `attribute` holds `schemaDefault` (which is empty, never matching, when there is none).
bool sameValue(const onnx::AttributeProto &attribute, const onnx::AttributeProto &schemaDefault)
{
    if (!attribute.ref_attr_name().empty() || attribute.type() != schemaDefault.type())
        return false;
    auto sameList = [](const auto &a, const auto &b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); };
    switch (schemaDefault.type()) {
    case onnx::AttributeProto::INT: return attribute.i() == schemaDefault.i();
    case onnx::AttributeProto::FLOAT: return attribute.f() == schemaDefault.f();
    case onnx::AttributeProto::STRING: return attribute.s() == schemaDefault.s();
    case onnx::AttributeProto::INTS: return sameList(attribute.ints(), schemaDefault.ints());
    case onnx::AttributeProto::FLOATS: return sameList(attribute.floats(), schemaDefault.floats());
    case onnx::AttributeProto::STRINGS: return sameList(attribute.strings(), schemaDefault.strings());
    default: return false; // tensors and graphs have no schema defaults worth comparing
    }
}

/// Ops whose `axis` attribute indexes the dims of input 0 (a negative one counts from the end).
bool axisIndexesInput0(const ir::Node &node)
{
    static const std::set<std::string_view> ops{
        "ArgMax",         "ArgMin",          "Compress",   "Concat",         "DequantizeLinear", "Flatten",
        "Gather",         "GatherElements",  "Hardmax",    "LayerNormalization", "LogSoftmax", "LpNormalization",
        "QuantizeLinear", "ScatterElements", "Softmax",    "Split",          "TopK"};
    return isStandard(node) && ops.contains(node.opType);
}

/// Ops with an `axes` list: an attribute, or input 1 in the opsets that moved it there.
bool hasAxesList(const ir::Node &node)
{
    return isStandard(node) &&
           (node.opType.starts_with("Reduce") || node.opType == "Squeeze" || node.opType == "Unsqueeze");
}

/// `axes` with each negative entry counted back from `rank`; nullopt when none is negative or one
/// lies before the first dim (an invalid model: the checker's business, not ours).
std::optional<Dims> nonNegative(Dims axes, std::int64_t rank)
{
    bool changed = false;
    for (std::int64_t &a : axes) {
        if (a >= 0)
            continue;
        if (a + rank < 0)
            return std::nullopt;
        a += rank;
        changed = true;
    }
    return changed ? std::optional<Dims>(std::move(axes)) : std::nullopt;
}

/// A scalar float constant equal to `infinity` (+inf or -inf).
bool isConstantInfinity(const ir::Model &model, ir::ValueId value, double infinity)
{
    const auto bound = value.valid() ? scalarConstant(model, value) : std::nullopt;
    return bound && *bound == infinity;
}

class FormNormalizer {
public:
    FormNormalizer(CanonicalizeRounds &rounds, ShapeOracle &shapes)
        : m_rounds(rounds), m_cx(rounds.context()), m_model(m_cx.model), m_shapes(shapes)
    {
    }

    std::size_t run(ir::GraphId graph)
    {
        std::size_t rewrites = 0;
        for (const ir::NodeId n : liveNodes(m_model, graph))
            for (const auto step : {&FormNormalizer::dropDefaultAttributes, &FormNormalizer::nonNegativeAxis,
                                    &FormNormalizer::nonNegativeAxesAttribute, &FormNormalizer::nonNegativeAxesInput,
                                    &FormNormalizer::explicitTransposePerm, &FormNormalizer::dropInfiniteClipBounds}) {
                if (m_rounds.budgetSpent())
                    return rewrites;
                const ir::Node &node = m_model.node(n);
                if (node.alive && (this->*step)(node))
                    ++rewrites;
            }
        return rewrites;
    }

private:
    /// The rank of `node`'s input 0 (plus `added` dims); declines `pattern` when it is unknown.
    std::optional<std::int64_t> rankOrDecline(const ir::Node &node, const char *pattern, std::size_t added = 0)
    {
        const ir::ValueId input = node.inputs.empty() ? ir::ValueId() : node.inputs[0];
        const auto rank = input.valid() ? m_shapes.rank(input) : std::nullopt;
        if (!rank) {
            if (input.valid())
                m_rounds.decline(node.id, pattern, "the rank of '" + m_model.value(input).name + "' is unknown");
            return std::nullopt;
        }
        return static_cast<std::int64_t>(*rank + added);
    }

    /// drop-default-attributes: an attribute equal to the schema's default at the model's opset says
    /// nothing its absence does not.
    bool dropDefaultAttributes(const ir::Node &node)
    {
        std::vector<std::string> defaults;
        for (const ir::Attribute &a : node.attributes)
            if (holdsSchemaDefault(m_model, node.opType, node.domain, a.proto))
                defaults.push_back(a.name());
        if (defaults.empty() || !m_rounds.begin(kDropDefaults))
            return false;
        std::string names;
        for (const std::string &name : defaults) {
            m_cx.rewriter.removeAttribute(node.id, name);
            names += (names.empty() ? "" : ", ") + name;
        }
        m_cx.rewriter.commit(names + " at the default");
        return true;
    }

    /// non-negative-axes, `axis` attribute form.
    bool nonNegativeAxis(const ir::Node &node)
    {
        const ir::Attribute *axis = node.attribute("axis");
        if (!axisIndexesInput0(node) || axis == nullptr || axis->proto.i() >= 0)
            return false;
        const auto rank = rankOrDecline(node, kNonNegativeAxes);
        const auto normalized = rank ? nonNegative({axis->proto.i()}, *rank) : std::nullopt;
        if (!normalized || !m_rounds.begin(kNonNegativeAxes))
            return false;
        const std::int64_t was = axis->proto.i();
        m_cx.rewriter.setAttribute(node.id, makeAttribute("axis", normalized->front()));
        m_cx.rewriter.commit("axis " + std::to_string(was) + " → " + std::to_string(normalized->front()));
        return true;
    }

    /// The rank an `axes` list of `count` entries indexes: the output's for Unsqueeze, else input 0's.
    std::optional<std::int64_t> axesRank(const ir::Node &node, std::size_t count)
    {
        return rankOrDecline(node, kNonNegativeAxes, node.opType == "Unsqueeze" ? count : 0);
    }

    /// non-negative-axes, `axes` attribute form (opsets before the input form).
    bool nonNegativeAxesAttribute(const ir::Node &node)
    {
        const Dims axes = attrInts(node, "axes");
        if (!hasAxesList(node) || std::none_of(axes.begin(), axes.end(), [](std::int64_t a) { return a < 0; }))
            return false;
        const auto rank = axesRank(node, axes.size());
        const auto normalized = rank ? nonNegative(axes, *rank) : std::nullopt;
        if (!normalized || !m_rounds.begin(kNonNegativeAxes))
            return false;
        m_cx.rewriter.setAttribute(node.id, makeAttribute("axes", *normalized));
        m_cx.rewriter.commit("axes " + runtime::shapeString(axes) + " → " + runtime::shapeString(*normalized));
        return true;
    }

    /// non-negative-axes, constant `axes` input form: a new initializer (duplicates merge in
    /// eliminate-common-subexpressions), the old constant goes when nothing else reads it.
    bool nonNegativeAxesInput(const ir::Node &node)
    {
        if (!hasAxesList(node) || node.inputs.size() < 2 || !node.inputs[1].valid())
            return false;
        const ir::ValueId old = node.inputs[1];
        const auto constant = constantValue(m_model, old);
        const auto axes = constant ? integerValues(*constant) : std::nullopt;
        if (!axes || std::none_of(axes->begin(), axes->end(), [](std::int64_t a) { return a < 0; }))
            return false;
        const auto rank = axesRank(node, axes->size());
        const auto normalized = rank ? nonNegative(*axes, *rank) : std::nullopt;
        if (!normalized || !m_rounds.begin(kNonNegativeAxes))
            return false;
        const std::string name = m_model.value(old).name + "_non_negative";
        const ir::ValueId replacement = m_cx.rewriter.createInitializer(node.graph, name, int64Tensor(*normalized));
        m_cx.rewriter.setInput(node.id, 1, replacement);
        eraseUnreadConstants(m_cx, {old});
        m_cx.rewriter.commit("axes input " + runtime::shapeString(*axes) + " → " + runtime::shapeString(*normalized));
        return true;
    }

    /// explicit-transpose-perm: no perm means the reversal, written out once the rank is known.
    bool explicitTransposePerm(const ir::Node &node)
    {
        if (!isOp(node, "Transpose") || node.attribute("perm") != nullptr)
            return false;
        const auto rank = rankOrDecline(node, kExplicitPerm);
        if (!rank || *rank == 0 || !m_rounds.begin(kExplicitPerm)) // a scalar has no perm to write
            return false;
        Dims perm(static_cast<std::size_t>(*rank));
        std::iota(perm.rbegin(), perm.rend(), std::int64_t(0));
        m_cx.rewriter.setAttribute(node.id, makeAttribute("perm", perm));
        m_cx.rewriter.commit("perm " + runtime::shapeString(perm));
        return true;
    }

    /// drop-infinite-clip-bounds: Clip's min -inf and max +inf (inputs from opset 11) bound nothing;
    /// an omitted bound is the one form of "no bound".
    bool dropInfiniteClipBounds(const ir::Node &node)
    {
        if (!isOp(node, "Clip") || standardOpset(m_model) < 11)
            return false;
        const ir::ValueId min = node.inputs.size() > 1 ? node.inputs[1] : ir::ValueId();
        const ir::ValueId max = node.inputs.size() > 2 ? node.inputs[2] : ir::ValueId();
        constexpr double infinity = std::numeric_limits<double>::infinity();
        const bool dropMin = isConstantInfinity(m_model, min, -infinity);
        const bool dropMax = isConstantInfinity(m_model, max, infinity);
        if ((!dropMin && !dropMax) || !m_rounds.begin(kClipBounds))
            return false;
        // max first: dropping the last input shortens the list, so min's index stays valid
        if (dropMax)
            m_cx.rewriter.setInput(node.id, 2, {});
        if (dropMin)
            m_cx.rewriter.setInput(node.id, 1, {});
        eraseUnreadConstants(m_cx, {min, max});
        const char *dropped = dropMin && dropMax ? "min -inf and max +inf" : dropMin ? "min -inf" : "max +inf";
        m_cx.rewriter.commit(std::string(dropped) + " dropped");
        return true;
    }

    CanonicalizeRounds &m_rounds;
    PassContext &m_cx;
    ir::Model &m_model;
    ShapeOracle &m_shapes;
};

} // namespace

bool holdsSchemaDefault(const ir::Model &model, const std::string &opType, const std::string &domain,
                        const onnx::AttributeProto &attribute)
{
    const auto version = model.opsetVersion(domain);
    if (!analysis::isOnnxDomain(domain) || !version)
        return false; // other domains' defaults are their kernels' business
    const onnx::OpSchema *schema = analysis::findSchema(opType, domain, *version);
    if (schema == nullptr)
        return false;
    const auto declared = schema->attributes().find(attribute.name());
    return declared != schema->attributes().end() && sameValue(attribute, declared->second.default_value);
}

std::size_t canonicalizeForms(CanonicalizeRounds &rounds, ShapeOracle &shapes, ir::GraphId graph)
{
    return FormNormalizer(rounds, shapes).run(graph);
}

} // namespace portolan::passes
