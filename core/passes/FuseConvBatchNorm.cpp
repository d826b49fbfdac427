// fuse-conv-bn: fold an inference-mode BatchNormalization into the Conv, Gemm or MatMul before it.
//
//   Before: X, W, B → Conv → t → BatchNormalization(γ, β, μ, σ²) → Y
//   After:  X, W', B' → Conv → Y
//
//   s = γ / √(σ² + ε) per output channel,  W'[m, …] = W[m, …] · s[m],  B' = (B − μ) · s + β
//
// Gemm (Y = α·A'·B + β_g·C, BN over its N columns): B's column n (row n with transB) is scaled by
// s[n] and C' = (β_g·C − μ)·s + β with β_g' = 1; C must be absent, a scalar, [N] or [1, N].
// MatMul with a 2-D constant weight and a 2-D input (so BN's channel axis is the product's last
// dim): becomes Gemm(A, W·s, β − μ·s). Conditions: BN's training_mode is absent or 0 (and, before
// opset 9, spatial is 1); only its output 0 is used; γ, β, μ, σ², the weight and any bias are
// constants with one value per channel; the product's output has no other consumer. Folding is
// computed in double and stored in the weight's element type.
#include "passes/FusionSupport.h"
#include "runtime/Dispatch.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include <cmath>

namespace portolan::passes {

namespace {

using runtime::Tensor;

/// y = x · scale[c] + shift[c] per channel c: what the BatchNormalization computes.
struct ChannelAffine {
    std::vector<double> scale, shift;
};

std::optional<ChannelAffine> readBatchNorm(const ir::Model &model, const ir::Node &bn, std::int64_t channels,
                                           std::string &why)
{
    if (attrInt(bn, "training_mode", 0) != 0) {
        why = "BatchNormalization is in training mode";
        return std::nullopt;
    }
    if (standardOpset(model) < 9 && attrInt(bn, "spatial", 1) == 0) {
        why = "BatchNormalization is not spatial (per-activation statistics)";
        return std::nullopt;
    }
    for (std::size_t o = 1; o < bn.outputs.size(); ++o)
        if (bn.outputs[o].valid() && (!model.value(bn.outputs[o]).uses.empty() || isGraphOutput(model, bn.outputs[o]))) {
            why = "BatchNormalization's running statistics are used";
            return std::nullopt;
        }
    if (bn.inputs.size() < 5) {
        why = "BatchNormalization has fewer than 5 inputs";
        return std::nullopt;
    }
    static const char *const names[] = {"scale", "bias", "mean", "variance"};
    std::vector<Tensor> stats;
    for (std::size_t i = 0; i < 4; ++i) {
        auto t = constantValue(model, bn.inputs[i + 1]);
        if (!t) {
            why = std::string("BatchNormalization ") + names[i] + " is not a constant";
            return std::nullopt;
        }
        if (!runtime::kernels::isFloatingType(t->dataType()) || t->size() != channels) {
            why = std::string("BatchNormalization ") + names[i] + " has " + std::to_string(t->size()) + " values for " +
                  std::to_string(channels) + " channels";
            return std::nullopt;
        }
        stats.push_back(asDouble(*t));
    }
    const double epsilon = attrFloat(bn, "epsilon", 1e-5f);
    ChannelAffine out;
    for (std::int64_t c = 0; c < channels; ++c) {
        const double s = stats[0].data<double>()[c] / std::sqrt(stats[3].data<double>()[c] + epsilon);
        out.scale.push_back(s);
        out.shift.push_back(stats[1].data<double>()[c] - stats[2].data<double>()[c] * s);
    }
    return out;
}

/// `w` with every element multiplied by scale[index along `axis`], back in w's element type.
Tensor scaledAlong(const Tensor &w, std::size_t axis, const std::vector<double> &scale)
{
    Tensor d = asDouble(w);
    std::int64_t inner = 1;
    for (std::size_t k = axis + 1; k < d.rank(); ++k)
        inner *= d.dim(k);
    const std::int64_t n = d.dim(axis);
    double *p = d.mutableData<double>();
    for (std::int64_t i = 0; i < d.size(); ++i)
        p[i] *= scale[static_cast<std::size_t>((i / inner) % n)];
    return fromDouble(d, w.dataType());
}

/// bias'[c] = base[c] · scale[c] + shift[c] (base 0 when absent), as a [C] tensor of `dataType`.
Tensor foldedBias(const std::optional<Tensor> &base, double baseFactor, const ChannelAffine &bn, int dataType)
{
    const auto channels = static_cast<std::int64_t>(bn.scale.size());
    std::vector<double> values(bn.scale.size());
    const Tensor b = base ? asDouble(*base) : Tensor();
    for (std::int64_t c = 0; c < channels; ++c) {
        const double v = base ? baseFactor * b.data<double>()[b.size() == 1 ? 0 : c] : 0.0;
        values[static_cast<std::size_t>(c)] = v * bn.scale[static_cast<std::size_t>(c)] + bn.shift[static_cast<std::size_t>(c)];
    }
    return fromDouble(Tensor::fromVector<double>(onnx::TensorProto::DOUBLE, {channels}, values), dataType);
}

/// The replacement: `op`(x, weight, bias) with `attributes`, and the constants it may leave unread.
struct Fold {
    std::string op;
    ir::ValueId x;
    Tensor weight, bias;
    std::string weightName;
    std::vector<onnx::AttributeProto> attributes;
    std::vector<ir::ValueId> oldConstants;
};

using Planner = std::optional<Fold> (*)(const ir::Model &, ShapeOracle &, const ir::Node &, const ir::Node &, std::string &);

std::optional<Fold> weightFold(const ir::Model &model, const ir::Node &host, const ir::Node &bn, std::string &why,
                               std::optional<Tensor> &weight)
{
    weight = host.inputs.size() > 1 ? constantValue(model, host.inputs[1]) : std::nullopt;
    if (!weight || !runtime::kernels::isFloatingType(weight->dataType())) {
        why = host.opType + " weight is not a floating-point constant";
        return std::nullopt;
    }
    Fold f;
    f.x = host.inputs[0];
    f.weightName = model.value(host.inputs[1]).name;
    f.oldConstants = {host.inputs[1]};
    for (std::size_t i = 1; i < bn.inputs.size(); ++i)
        f.oldConstants.push_back(bn.inputs[i]);
    return f;
}

std::optional<Fold> planConv(const ir::Model &model, ShapeOracle &, const ir::Node &conv, const ir::Node &bn,
                             std::string &why)
{
    std::optional<Tensor> w;
    auto f = weightFold(model, conv, bn, why, w);
    if (!f || w->rank() < 3) {
        why = f ? "Conv weight has rank " + std::to_string(w->rank()) : why;
        return std::nullopt;
    }
    std::optional<Tensor> b;
    if (conv.inputs.size() > 2 && conv.inputs[2].valid()) {
        b = constantValue(model, conv.inputs[2]);
        if (!b || b->size() != w->dim(0)) {
            why = "Conv bias is not a constant with one value per filter";
            return std::nullopt;
        }
        f->oldConstants.push_back(conv.inputs[2]);
    }
    const auto bnFold = readBatchNorm(model, bn, w->dim(0), why);
    if (!bnFold)
        return std::nullopt;
    f->op = "Conv";
    f->weight = scaledAlong(*w, 0, bnFold->scale);
    f->bias = foldedBias(b, 1.0, *bnFold, b ? b->dataType() : w->dataType());
    for (const ir::Attribute &a : conv.attributes)
        f->attributes.push_back(a.proto);
    return f;
}

std::optional<Fold> planGemm(const ir::Model &model, ShapeOracle &, const ir::Node &gemm, const ir::Node &bn,
                             std::string &why)
{
    std::optional<Tensor> w;
    auto f = weightFold(model, gemm, bn, why, w);
    if (!f || w->rank() != 2) {
        why = f ? "Gemm weight is not 2-D" : why;
        return std::nullopt;
    }
    const bool transB = attrInt(gemm, "transB", 0) != 0;
    const std::int64_t n = w->dim(transB ? 0 : 1);
    std::optional<Tensor> c;
    if (gemm.inputs.size() > 2 && gemm.inputs[2].valid()) {
        c = constantValue(model, gemm.inputs[2]);
        const bool perColumn = c && (c->size() == 1 || (c->size() == n && c->dim(c->rank() - 1) == n));
        if (!perColumn) {
            why = "Gemm bias C is not a constant scalar, [N] or [1, N]";
            return std::nullopt;
        }
        f->oldConstants.push_back(gemm.inputs[2]);
    }
    const auto bnFold = readBatchNorm(model, bn, n, why);
    if (!bnFold)
        return std::nullopt;
    f->op = "Gemm";
    f->weight = scaledAlong(*w, transB ? 0 : 1, bnFold->scale);
    f->bias = foldedBias(c, attrFloat(gemm, "beta", 1.0f), *bnFold, c ? c->dataType() : w->dataType());
    f->attributes = copyAttributes(gemm, {"alpha", "transA", "transB"});
    if (standardOpset(model) < 7) // Gemm before opset 7 broadcasts C only when asked to
        f->attributes.push_back(makeAttribute("broadcast", std::int64_t(1)));
    return f;
}

std::optional<Fold> planMatMul(const ir::Model &model, ShapeOracle &shapes, const ir::Node &matMul, const ir::Node &bn,
                               std::string &why)
{
    std::optional<Tensor> w;
    auto f = weightFold(model, matMul, bn, why, w);
    if (!f || w->rank() != 2) {
        why = f ? "MatMul weight is not 2-D" : why;
        return std::nullopt;
    }
    const auto rank = shapes.rank(matMul.inputs[0]);
    if (!rank) {
        why = "MatMul input rank is unknown";
        return std::nullopt;
    }
    if (*rank != 2) {
        why = "MatMul input has rank " + std::to_string(*rank) +
              ": BatchNormalization normalizes axis 1, not the product's last dim";
        return std::nullopt;
    }
    const auto bnFold = readBatchNorm(model, bn, w->dim(1), why);
    if (!bnFold)
        return std::nullopt;
    f->op = "Gemm";
    f->weight = scaledAlong(*w, 1, bnFold->scale);
    f->bias = foldedBias(std::nullopt, 1.0, *bnFold, w->dataType());
    if (standardOpset(model) < 7)
        f->attributes.push_back(makeAttribute("broadcast", std::int64_t(1)));
    return f;
}

} // namespace

support::Status FuseConvBatchNorm::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &bn = model.node(n);
            if (!isOp(bn, "BatchNormalization") || bn.inputs.empty() || bn.outputs.empty())
                continue;
            const ir::Node *host = producerOf(model, bn.inputs[0]);
            Planner planner = nullptr;
            if (host && isOp(*host, "Conv"))
                planner = planConv;
            else if (host && isOp(*host, "Gemm"))
                planner = planGemm;
            else if (host && isOp(*host, "MatMul"))
                planner = planMatMul;
            if (planner == nullptr)
                continue;
            if (auto problem = singleUseProblem(model, bn.inputs[0], host->opType + " output")) {
                cx.rewriter.notifyMatchFailure(bn.id, "conv-bn", *problem);
                continue;
            }
            std::string why;
            auto fold = planner(model, shapes, *host, bn, why);
            if (!fold) {
                cx.rewriter.notifyMatchFailure(bn.id, "conv-bn", why);
                cx.rewriter.count("skipped");
                continue;
            }
            if (!cx.rewriter.begin("conv-bn"))
                return support::Status::ok();
            const ir::GraphId graph = host->graph;
            const ir::ValueId w = cx.rewriter.createInitializer(graph, fold->weightName + "_bn", fold->weight);
            const std::string biasName = host->name.empty() ? std::string("bias_bn") : host->name + "_bias_bn";
            const ir::ValueId b = cx.rewriter.createInitializer(graph, biasName, fold->bias);
            const std::string detail = host->opType + " + BatchNormalization";
            replaceChain(cx, fold->op, "", {fold->x, w, b}, std::move(fold->attributes), bn.outputs[0], {host->id, bn.id},
                         fold->oldConstants);
            cx.rewriter.count("fused");
            cx.rewriter.commit(detail);
        }
    return support::Status::ok();
}

} // namespace portolan::passes
