// fuse-conv-add: fold the Add after a Conv into the Conv's bias, or a residual Add into FusedConv.
//
//   Bias:     X, W, B → Conv → t → Add(t, c) → Y    ⇒   X, W, B + c → Conv → Y
//   Residual: X, W, B → Conv → t → Add(t, Z) → Y    ⇒   X, W, B, Z → FusedConv → Y
//
// Bias: c is a constant that broadcasts per output channel (shape [1, M, 1, …] or [M, 1, …], or a
// single value); B' = B + c is computed in double and stored in B's (else W's) element type. B must
// be absent or a constant. Residual: Z is not constant and has exactly the Conv output's static
// shape (so the Add broadcasts nothing); Y = Conv(X, W) + B + Z. Either operand order of Add. The
// Conv output must have no other consumer and not be a graph output. The residual form creates an
// ai.portolan op, so it declines in standard-only mode.
#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "runtime/Dispatch.h"
#include "passes/Match.h"
#include "passes/Pass.h"

namespace portolan::passes {

namespace {

using runtime::Shape;
using runtime::Tensor;

const std::vector<std::string> kConvAttributes{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};

/// Whether constant dims `c` broadcast onto a [N, M, spatial…] output of rank `outRank` as one value
/// per channel: every dim is 1 except, at the channel axis, M.
bool isPerChannel(const Shape &c, std::size_t outRank, std::int64_t filters)
{
    if (c.size() > outRank)
        return false;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const std::size_t axis = outRank - c.size() + i;
        if (c[i] != 1 && !(axis == 1 && c[i] == filters))
            return false;
    }
    return true;
}

} // namespace

support::Status FuseConvAdd::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &add = model.node(n);
            if (!isOp(add, "Add") || add.inputs.size() != 2)
                continue;
            // The Conv operand: an Add input a Conv produces, one with no other consumer if there is one.
            std::size_t side = 2;
            for (std::size_t i = 0; i < 2; ++i)
                if (producerOf(model, add.inputs[i], "Conv") && (side == 2 || hasSingleUse(model, add.inputs[i])))
                    side = (side == 2 || !hasSingleUse(model, add.inputs[side])) ? i : side;
            if (side == 2)
                continue;
            const ir::Node &conv = *producerOf(model, add.inputs[side]);
            const ir::ValueId other = add.inputs[1 - side];
            if (auto problem = singleUseProblem(model, conv.outputs[0], "Conv output")) {
                cx.rewriter.notifyMatchFailure(add.id, "conv-add", *problem);
                continue;
            }
            const auto w = conv.inputs.size() > 1 ? constantValue(model, conv.inputs[1]) : std::nullopt;
            const bool hasBias = conv.inputs.size() > 2 && conv.inputs[2].valid();
            const auto constant = constantValue(model, other);
            if (constant && w && w->rank() >= 3) {
                // ---- bias form ----
                const std::int64_t filters = w->dim(0);
                std::optional<Tensor> bias = hasBias ? constantValue(model, conv.inputs[2]) : std::nullopt;
                std::string why;
                if (!runtime::kernels::isFloatingType(constant->dataType()) || !isPerChannel(constant->shape(), w->rank(), filters))
                    why = "Add constant " + runtime::shapeString(constant->shape()) + " is not one value per output channel";
                else if (hasBias && (!bias || bias->size() != filters))
                    why = "Conv bias is not a constant with one value per filter";
                if (!why.empty()) {
                    cx.rewriter.notifyMatchFailure(add.id, "conv-add-bias", why);
                    continue;
                }
                if (!cx.rewriter.begin("conv-add-bias"))
                    return support::Status::ok();
                const Tensor c = asDouble(*constant);
                const Tensor b = bias ? asDouble(*bias) : Tensor();
                std::vector<double> sum(static_cast<std::size_t>(filters));
                for (std::int64_t m = 0; m < filters; ++m)
                    sum[static_cast<std::size_t>(m)] =
                        (bias ? b.data<double>()[m] : 0.0) + c.data<double>()[c.size() == 1 ? 0 : m];
                const int type = bias ? bias->dataType() : w->dataType();
                const Tensor folded = fromDouble(Tensor::fromVector<double>(onnx::TensorProto::DOUBLE, {filters}, sum), type);
                const ir::ValueId newBias = cx.rewriter.createInitializer(
                    conv.graph, (conv.name.empty() ? std::string("conv") : conv.name) + "_bias_add", folded);
                std::vector<onnx::AttributeProto> attributes;
                for (const ir::Attribute &a : conv.attributes)
                    attributes.push_back(a.proto);
                std::vector<ir::ValueId> unread{other};
                if (hasBias)
                    unread.push_back(conv.inputs[2]);
                replaceChain(cx, "Conv", "", {conv.inputs[0], conv.inputs[1], newBias}, std::move(attributes),
                             add.outputs[0], {conv.id, add.id}, unread);
                cx.rewriter.count("fused-bias");
                cx.rewriter.commit("Conv + Add(constant)");
                continue;
            }
            // ---- residual form ----
            std::string why;
            const auto convShape = shapes.staticDims(conv.outputs[0]);
            const auto otherShape = shapes.staticDims(other);
            if (constant)
                why = "Add constant is not one value per output channel (the Conv weight is not a constant)";
            else if (!convShape || !otherShape)
                why = "the shapes of the Conv output and the other Add operand are not both known";
            else if (*convShape != *otherShape)
                why = "the other Add operand " + runtime::shapeString(*otherShape) + " is not of the Conv output's shape " +
                      runtime::shapeString(*convShape);
            else if (const int a = elementTypeOf(model, other), b = elementTypeOf(model, conv.outputs[0]); a && b && a != b)
                why = "the Add operands have different element types";
            else if (cx.standardOnly)
                why = "standard-only: FusedConv is not a standard op";
            if (!why.empty()) {
                cx.rewriter.notifyMatchFailure(add.id, "conv-add-residual", why);
                continue;
            }
            if (!cx.rewriter.begin("conv-add-residual"))
                return support::Status::ok();
            std::vector<ir::ValueId> inputs = conv.inputs;
            inputs.resize(3); // B stays, or is omitted
            inputs.push_back(other);
            importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            replaceChain(cx, "FusedConv", opset::kPortolanDomain, inputs, copyAttributes(conv, kConvAttributes),
                         add.outputs[0], {conv.id, add.id});
            cx.rewriter.count("fused-residual");
            cx.rewriter.commit("Conv + Add(residual)");
        }
    return support::Status::ok();
}

} // namespace portolan::passes
