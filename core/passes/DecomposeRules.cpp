// decompose's rules for the normalizations, attention, the activations and simple Einsum forms.
// Each rule checks first (reading only) and returns how to emit; see Decompose.cpp for the formulas.
#include "passes/DecomposeSupport.h"
#include "runtime/Dispatch.h"
#include "passes/Match.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace portolan::passes {

namespace {

ir::ValueId inputOf(const ir::Node &node, std::size_t i)
{
    return i < node.inputs.size() ? node.inputs[i] : ir::ValueId();
}

bool isHalf(int type)
{
    return type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16;
}

/// Why a normalization's primitives would not be faithful for this element type (nullopt: they are).
std::optional<std::string> statisticsProblem(int type)
{
    if (!runtime::kernels::isFloatingType(type))
        return "X is not known to be a floating-point tensor";
    if (isHalf(type))
        return "X is " + ir::dataTypeName(type) + ": the primitives would compute the statistics at that precision";
    return std::nullopt;
}

/// The trailing axes from the node's `axis` attribute, or why they are not known.
std::optional<std::vector<std::int64_t>> normalizedAxes(const DecomposeInput &in, std::string &why)
{
    const std::int64_t axis = attrInt(in.node, "axis", -1);
    auto axes = axesFrom(axis, in.shapes.rank(in.node.inputs[0]));
    if (!axes)
        why = "axis " + std::to_string(axis) + " needs X's rank, which is unknown or smaller";
    return axes;
}

/// (x − mean) / √(variance + ε) · scale + bias over `axes`, as exporters write it.
ir::ValueId emitLayerNorm(Emitter &e, ir::ValueId x, ir::ValueId scale, ir::ValueId bias,
                          const std::vector<std::int64_t> &axes, double epsilon)
{
    const ir::ValueId d = e.op("Sub", {x, e.reduceMean(x, axes)});
    const ir::ValueId variance = e.reduceMean(e.op("Pow", {d, e.scalar(2.0)}), axes);
    ir::ValueId y = e.op("Div", {d, e.op("Sqrt", {e.op("Add", {variance, e.scalar(epsilon)})})});
    if (scale.valid())
        y = e.op("Mul", {y, scale});
    if (bias.valid())
        y = e.op("Add", {y, bias});
    return y;
}

DecomposePlan layerNormalization(const DecomposeInput &in)
{
    std::string why;
    if (auto problem = statisticsProblem(in.elementType))
        return declined(*problem);
    const auto axes = normalizedAxes(in, why);
    if (!axes)
        return declined(why);
    const double epsilon = attrFloat(in.node, "epsilon", 1e-5f);
    const ir::Node &n = in.node;
    return {{}, [&n, axes = *axes, epsilon](Emitter &e) {
                e.replaceOutput(0, emitLayerNorm(e, n.inputs[0], inputOf(n, 1), inputOf(n, 2), axes, epsilon));
            }};
}

DecomposePlan rmsNormalization(const DecomposeInput &in)
{
    std::string why;
    if (auto problem = statisticsProblem(in.elementType))
        return declined(*problem);
    const auto axes = normalizedAxes(in, why);
    if (!axes)
        return declined(why);
    const double epsilon = attrFloat(in.node, "epsilon", 1e-5f);
    const ir::Node &n = in.node;
    return {{}, [&n, axes = *axes, epsilon](Emitter &e) {
                const ir::ValueId x = n.inputs[0];
                const ir::ValueId meanSquare = e.reduceMean(e.op("Pow", {x, e.scalar(2.0)}), axes);
                const ir::ValueId s = e.op("Sqrt", {e.op("Add", {meanSquare, e.scalar(epsilon)})});
                e.replaceOutput(0, e.op("Mul", {e.op("Div", {x, s}), n.inputs[1]}));
            }};
}

DecomposePlan skipLayerNormalization(const DecomposeInput &in)
{
    std::string why;
    if (auto problem = statisticsProblem(in.elementType))
        return declined(*problem);
    const auto axes = normalizedAxes(in, why);
    if (!axes)
        return declined(why);
    const double epsilon = attrFloat(in.node, "epsilon", 1e-5f);
    const ir::Node &n = in.node;
    return {{}, [&n, axes = *axes, epsilon](Emitter &e) {
                const ir::ValueId bias = inputOf(n, 4);
                const ir::ValueId skip = bias.valid() ? e.op("Add", {n.inputs[1], bias}) : n.inputs[1];
                const ir::ValueId sum = e.op("Add", {n.inputs[0], skip});
                e.replaceOutput(0, emitLayerNorm(e, sum, n.inputs[2], inputOf(n, 3), axes, epsilon));
                if (n.outputs.size() > 1 && n.outputs[1].valid() &&
                    (!e.model().value(n.outputs[1]).uses.empty() || isGraphOutput(e.model(), n.outputs[1])))
                    e.replaceOutput(1, sum);
            }};
}

DecomposePlan attention(const DecomposeInput &in)
{
    if (!runtime::kernels::isFloatingType(in.elementType))
        return declined("Q is not known to be a floating-point tensor");
    const ir::Node &n = in.node;
    const auto rank = in.shapes.rank(n.inputs[1]);
    if (!rank || *rank < 2)
        return declined("K's rank is unknown (needed to transpose its last two axes)");
    const bool sequenceFirst = attrString(n, "layout", "NSD") == "SND";
    if (sequenceFirst && *rank < 3)
        return declined("layout SND needs rank 3 or more");
    const std::size_t fromEnd = sequenceFirst ? 3 : 2; // the sequence axis, counted from the end
    const bool causal = attrInt(n, "causal", 0) != 0;
    runtime::Tensor causalMask;
    if (causal) {
        const auto q = in.shapes.staticDims(n.inputs[0]), k = in.shapes.staticDims(n.inputs[1]);
        if (!q || !k || q->size() < fromEnd || k->size() < fromEnd)
            return declined("causal: the sequence lengths of Q and K are not static (the mask is a constant)");
        const std::int64_t sq = (*q)[q->size() - fromEnd], sk = (*k)[k->size() - fromEnd];
        runtime::Tensor mask = runtime::Tensor::zeros(onnx::TensorProto::DOUBLE, {sq, sk});
        for (std::int64_t i = 0; i < sq; ++i)
            for (std::int64_t j = 0; j < sk; ++j)
                if (j > i + (sk - sq))
                    mask.mutableData<double>()[i * sk + j] = -std::numeric_limits<double>::infinity();
        causalMask = fromDouble(mask, in.elementType);
    }
    const double scale = attrFloat(n, "scale", 1.0f);
    return {{}, [&n, r = static_cast<std::int64_t>(*rank), causalMask, scale, sequenceFirst](Emitter &e) {
                auto swapping = [r](std::int64_t a, std::int64_t b) {
                    std::vector<std::int64_t> perm;
                    for (std::int64_t i = 0; i < r; ++i)
                        perm.push_back(i);
                    std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
                    return perm;
                };
                // SND inputs are [..., S, N, D]: the primitives work on [..., N, S, D].
                const auto heads = swapping(r - 3 < 0 ? 0 : r - 3, r - 2);
                auto nsd = [&](ir::ValueId v) { return sequenceFirst ? e.transpose(v, heads) : v; };
                const ir::ValueId q = nsd(n.inputs[0]), v = nsd(n.inputs[2]);
                // K: [..., S, N, D] → [..., N, D, S] in one transpose when SND.
                std::vector<std::int64_t> kPerm = swapping(r - 1, r - 2);
                if (sequenceFirst)
                    for (std::int64_t &axis : kPerm)
                        axis = heads[static_cast<std::size_t>(axis)];
                ir::ValueId scores = e.op("MatMul", {q, e.transpose(n.inputs[1], kPerm)});
                if (scale != 1.0)
                    scores = e.op("Mul", {scores, e.scalar(scale)});
                if (inputOf(n, 3).valid())
                    scores = e.op("Add", {scores, n.inputs[3]});
                if (causalMask.defined())
                    scores = e.op("Add", {scores, e.constant(causalMask, "causal_mask")});
                const std::int64_t axis = e.opset() >= 13 ? -1 : r - 1;
                const ir::ValueId p = e.op("Softmax", {scores}, {makeAttribute("axis", axis)});
                const ir::ValueId y = e.op("MatMul", {p, v});
                e.replaceOutput(0, sequenceFirst ? e.transpose(y, heads) : y);
            }};
}

DecomposePlan gelu(const DecomposeInput &in)
{
    if (!runtime::kernels::isFloatingType(in.elementType))
        return declined("X is not known to be a floating-point tensor");
    const std::string approximate = attrString(in.node, "approximate", "none");
    if (approximate != "none" && approximate != "tanh")
        return declined("approximate is \"" + approximate + "\", not \"none\" or \"tanh\"");
    const bool tanh = approximate == "tanh";
    if (!tanh && standardOpset(in.model) < 9)
        return declined("Erf needs opset 9 (the model has " + std::to_string(standardOpset(in.model)) + ")");
    const ir::Node &n = in.node;
    return {{}, [&n, tanh](Emitter &e) { e.replaceOutput(0, emitGelu(e, n.inputs[0], tanh)); }};
}

DecomposePlan hardSwish(const DecomposeInput &in)
{
    if (!runtime::kernels::isFloatingType(in.elementType))
        return declined("X is not known to be a floating-point tensor");
    const ir::Node &n = in.node;
    return {{}, [&n](Emitter &e) {
                const ir::ValueId gate = e.op("HardSigmoid", {n.inputs[0]},
                                              {makeAttribute("alpha", 1.0f / 6.0f), makeAttribute("beta", 0.5f)});
                e.replaceOutput(0, e.op("Mul", {n.inputs[0], gate}));
            }};
}

/// Positions in `term` of each letter of `letters`.
std::vector<std::int64_t> positions(const std::string &term, const std::string &letters)
{
    std::vector<std::int64_t> out;
    for (const char c : letters)
        out.push_back(static_cast<std::int64_t>(term.find(c)));
    return out;
}

bool hasRepeat(std::string s)
{
    std::sort(s.begin(), s.end());
    return std::adjacent_find(s.begin(), s.end()) != s.end();
}

DecomposePlan einsum(const DecomposeInput &in)
{
    std::string eq = attrString(in.node, "equation", "");
    eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
    if (eq.find('.') != std::string::npos)
        return declined("Einsum '" + eq + "' has '...' (broadcast dims)");
    const std::size_t arrow = eq.find("->");
    std::vector<std::string> terms{""};
    for (const char c : eq.substr(0, arrow)) {
        if (c == ',')
            terms.emplace_back();
        else
            terms.back().push_back(c);
    }
    if (terms.size() != in.node.inputs.size() || terms.size() > 2)
        return declined("Einsum '" + eq + "' has other than one or two operands");
    std::string all;
    for (const std::string &t : terms) {
        if (hasRepeat(t))
            return declined("Einsum '" + eq + "' repeats an index within an operand (a diagonal)");
        all += t;
    }
    std::string out;
    if (arrow == std::string::npos) { // implicit output: the letters seen once, sorted
        for (const char c : all)
            if (std::count(all.begin(), all.end(), c) == 1)
                out.push_back(c);
        std::sort(out.begin(), out.end());
    } else {
        out = eq.substr(arrow + 2);
    }
    if (hasRepeat(out))
        return declined("Einsum '" + eq + "' repeats an output index");
    const ir::Node &n = in.node;
    const auto has = [](const std::string &s, char c) { return s.find(c) != std::string::npos; };
    if (terms.size() == 1) {
        std::string a = terms[0], b = out;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b)
            return declined("Einsum '" + eq + "' sums over an index (one operand: only permutations are decomposed)");
        return {{}, [&n, perm = positions(terms[0], out)](Emitter &e) {
                    const ir::ValueId t = e.transpose(n.inputs[0], perm);
                    e.replaceOutput(0, t == n.inputs[0] ? e.op("Identity", {t}) : t);
                }};
    }
    const std::string &a = terms[0], &b = terms[1];
    std::string batch, rows, columns, contracted;
    for (const char c : out) {
        if (has(a, c) && has(b, c))
            batch.push_back(c);
        else if (has(a, c))
            rows.push_back(c);
        else if (has(b, c))
            columns.push_back(c);
        else
            return declined("Einsum '" + eq + "' has an output index no operand has");
    }
    for (const char c : all)
        if (!has(out, c) && !(has(a, c) && has(b, c)))
            return declined("Einsum '" + eq + "' sums over an index of one operand");
    for (const char c : a)
        if (!has(out, c))
            contracted.push_back(c);
    if (rows.size() != 1 || columns.size() != 1 || contracted.size() != 1)
        return declined("Einsum '" + eq + "' is not one matrix product (one row, one column and one contracted index)");
    const std::string product = batch + rows + columns;
    return {{}, [&n, permA = positions(a, batch + rows + contracted), permB = positions(b, batch + contracted + columns),
                 permOut = positions(product, out)](Emitter &e) {
                const ir::ValueId y = e.op("MatMul", {e.transpose(n.inputs[0], permA), e.transpose(n.inputs[1], permB)});
                e.replaceOutput(0, e.transpose(y, permOut));
            }};
}

} // namespace

ir::ValueId emitGelu(Emitter &e, ir::ValueId x, bool tanh)
{
    ir::ValueId onePlus;
    if (tanh) {
        const ir::ValueId cube = e.op("Pow", {x, e.scalar(3.0)});
        const ir::ValueId inner = e.op("Add", {x, e.op("Mul", {cube, e.scalar(0.044715)})});
        onePlus = e.op("Add", {e.op("Tanh", {e.op("Mul", {inner, e.scalar(std::sqrt(2 / std::numbers::pi))})}), e.scalar(1.0)});
    } else {
        onePlus = e.op("Add", {e.op("Erf", {e.op("Div", {x, e.scalar(std::numbers::sqrt2)})}), e.scalar(1.0)});
    }
    return e.op("Mul", {e.op("Mul", {x, onePlus}), e.scalar(0.5)});
}

const std::vector<DecomposeRule> &transformerDecompositions()
{
    static const std::vector<DecomposeRule> rules{
        {"LayerNormalization", true, true, layerNormalization},
        {"RMSNormalization", false, true, rmsNormalization},
        {"SkipLayerNormalization", false, true, skipLayerNormalization, 2},
        {"Attention", false, true, attention},
        {"Gelu", true, true, gelu},
        {"HardSwish", true, false, hardSwish},
        {"Einsum", true, false, einsum},
    };
    return rules;
}

} // namespace portolan::passes
