// fuse-matmul-add: fold a constant bias Add after a MatMul into Gemm (2-D) or FusedMatMul (otherwise).
//
//   Before: A, B → MatMul → t → Add(t, bias) → Y
//   After:  A, B, bias[N] → Gemm → Y                 when A has static rank 2 and B is a 2-D constant
//           A, B, bias[N] → FusedMatMul → Y          otherwise
//
// Y = MatMul(A, B) + bias, the bias one value per column (shape [N], [1, N], [1, 1, N] … or a single
// value, no more dims than the product, so the Add broadcasts nothing onto it). Either operand order
// of Add. The MatMul output must have no other consumer and not be a graph output; B's last dim N
// must be known. FusedMatMul is an ai.portolan op: declined in standard-only mode.
#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "runtime/Dispatch.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include <algorithm>

namespace portolan::passes {

namespace {

using runtime::Tensor;

/// Why `bias` is not a per-column bias of a product with `columns` columns and rank `outRank`.
std::optional<std::string> biasProblem(const Tensor &bias, std::int64_t columns, std::optional<std::size_t> outRank)
{
    if (!runtime::kernels::isFloatingType(bias.dataType()))
        return "Add constant is not floating-point";
    const auto &dims = bias.shape();
    if (outRank && dims.size() > *outRank)
        return "Add constant " + runtime::shapeString(dims) + " has more dims than the MatMul output";
    if (!outRank && dims.size() > 1)
        return "Add constant " + runtime::shapeString(dims) + " has several dims and the MatMul output's rank is unknown";
    for (std::size_t i = 0; i + 1 < dims.size(); ++i)
        if (dims[i] != 1)
            return "Add constant " + runtime::shapeString(dims) + " is not one value per column";
    if (!dims.empty() && dims.back() != columns && dims.back() != 1)
        return "Add constant " + runtime::shapeString(dims) + " does not match the " + std::to_string(columns) +
               " MatMul columns";
    return std::nullopt;
}

} // namespace

support::Status FuseMatMulAdd::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &add = model.node(n);
            if (!isOp(add, "Add") || add.inputs.size() != 2)
                continue;
            std::size_t side = 2;
            for (std::size_t i = 0; i < 2 && side == 2; ++i)
                if (producerOf(model, add.inputs[i], "MatMul") && constantValue(model, add.inputs[1 - i]))
                    side = i;
            if (side == 2)
                continue; // no MatMul + constant here (a non-constant Add is no bias)
            const ir::Node &matMul = *producerOf(model, add.inputs[side]);
            const ir::ValueId biasValue = add.inputs[1 - side];
            const Tensor bias = *constantValue(model, biasValue);
            std::string why;
            const auto b = constantValue(model, matMul.inputs[1]);
            const auto bDims = shapes.dims(matMul.inputs[1]);
            const auto aRank = shapes.rank(matMul.inputs[0]);
            auto outRank = shapes.rank(matMul.outputs[0]);
            if (!outRank && aRank && bDims && *aRank >= 2 && bDims->size() >= 2)
                outRank = std::max(*aRank, bDims->size());
            std::int64_t columns = -1;
            if (bDims && bDims->size() >= 2 && bDims->back().isStatic())
                columns = bDims->back().extent();
            if (auto problem = singleUseProblem(model, matMul.outputs[0], "MatMul output"))
                why = *problem;
            else if (columns < 0)
                why = "the MatMul's column count (B's last dim) is unknown";
            else if (auto bad = biasProblem(bias, columns, outRank))
                why = *bad;
            const bool asGemm = aRank == 2u && b && b->rank() == 2;
            if (why.empty() && !asGemm && cx.standardOnly)
                why = "standard-only: FusedMatMul is not a standard op (A is not of static rank 2 or B is not a 2-D constant)";
            if (!why.empty()) {
                cx.rewriter.notifyMatchFailure(add.id, "matmul-add", why);
                continue;
            }
            if (!cx.rewriter.begin(asGemm ? "matmul-add-gemm" : "matmul-add-fused"))
                return support::Status::ok();
            // The bias as [N] (a single value repeated), at the bias's own element type.
            const Tensor d = asDouble(bias);
            std::vector<double> row(static_cast<std::size_t>(columns));
            for (std::int64_t j = 0; j < columns; ++j)
                row[static_cast<std::size_t>(j)] = d.data<double>()[d.size() == 1 ? 0 : j];
            ir::ValueId biasRow = biasValue;
            if (bias.shape() != runtime::Shape{columns})
                biasRow = cx.rewriter.createInitializer(
                    matMul.graph, model.value(biasValue).name + "_row",
                    fromDouble(Tensor::fromVector<double>(onnx::TensorProto::DOUBLE, {columns}, row), bias.dataType()));
            const std::vector<ir::ValueId> inputs{matMul.inputs[0], matMul.inputs[1], biasRow};
            std::vector<onnx::AttributeProto> attributes;
            if (asGemm && standardOpset(model) < 7)
                attributes.push_back(makeAttribute("broadcast", std::int64_t(1)));
            if (!asGemm)
                importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            replaceChain(cx, asGemm ? "Gemm" : "FusedMatMul", asGemm ? "" : opset::kPortolanDomain, inputs,
                         std::move(attributes), add.outputs[0], {matMul.id, add.id}, {biasValue});
            cx.rewriter.count(asGemm ? "fused-gemm" : "fused-matmul");
            cx.rewriter.commit(asGemm ? "MatMul + Add → Gemm" : "MatMul + Add → FusedMatMul");
        }
    return support::Status::ok();
}

} // namespace portolan::passes
