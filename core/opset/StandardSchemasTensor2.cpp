// Standard-domain schemas of opsets 18–27 for CenterCropPad, Col2Im, the bitwise ops and CumProd: the
// second half of StandardSchemasTensor.cpp, whose tensorOpSchemas() includes them.
#include "opset/SchemaInference.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::opset {

namespace {

// ---- CenterCropPad -----------------------------------------------------------------------------------

void inferCenterCropPad(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (!onnx::hasInputShape(ctx, 0))
        return;
    const TensorShapeProto &in = onnx::getInputShape(ctx, 0);
    const int rank = in.dim_size();
    std::vector<std::int64_t> axes;
    if (const AttributeProto *attr = ctx.getAttribute("axes")) {
        axes.assign(attr->ints().begin(), attr->ints().end());
        normalizeAxes(axes, rank, "CenterCropPad", "attribute 'axes'", false);
    } else {
        for (int i = 0; i < rank; ++i)
            axes.push_back(i);
    }
    const auto shape = constantInts(ctx, 1, "CenterCropPad", "shape");
    if (shape && shape->size() != axes.size())
        fail_shape_inference("CenterCropPad: 'shape' has ", shape->size(), " values for ", axes.size(), " axes");
    TensorShapeProto out = in; // axes not named keep their dims
    for (size_t i = 0; i < axes.size(); ++i) {
        auto *d = out.mutable_dim(static_cast<int>(axes[i]));
        if (!shape) {
            d->Clear();
        } else {
            if ((*shape)[i] < 0)
                fail_shape_inference("CenterCropPad: 'shape' values must be >= 0, got ", (*shape)[i]);
            d->set_dim_value((*shape)[i]);
        }
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema centerCropPad18()
{
    OpSchema s;
    s.SetName("CenterCropPad")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Resizes the chosen axes of `input_data` to the sizes in `shape` about their centre, other axes "
                "unchanged. An axis larger than its target is cropped to a centred window whose start is rounded "
                "down (an odd surplus leaves the extra element at the end cut). An axis smaller than its target is "
                "padded with zeros on both sides, the odd extra element going to the end.")
        .Input(0, "input_data", "the tensor to crop or pad", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "shape", "1-D target sizes, one per entry of `axes`", "Tind", OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "output_data", "the centred crop or padding", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("axes", "the axes `shape` refers to (negative counts from the back); all axes when absent",
              AttributeProto::INTS, false)
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "shape as int32 or int64")
        .TypeAndShapeInferenceFunction(inferCenterCropPad);
    return s;
}

// ---- Col2Im ------------------------------------------------------------------------------------------

void inferCol2Im(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    // Every source of the spatial rank must agree.
    std::int64_t spatial = -1;
    auto agree = [&spatial](std::int64_t n, const char *source) {
        if (spatial >= 0 && n != spatial)
            fail_shape_inference("Col2Im: ", source, " implies ", n, " spatial axes, elsewhere ", spatial);
        spatial = n;
    };
    const auto image = constantInts(ctx, 1, "Col2Im", "image_shape");
    const auto block = constantInts(ctx, 2, "Col2Im", "block_shape");
    for (size_t i : {size_t{1}, size_t{2}}) {
        if (!onnx::hasInputShape(ctx, i))
            continue;
        const auto &s = onnx::getInputShape(ctx, i);
        if (s.dim_size() != 1)
            fail_shape_inference("Col2Im: '", i == 1 ? "image_shape" : "block_shape", "' must be 1-D");
        if (s.dim(0).has_dim_value())
            agree(s.dim(0).dim_value(), i == 1 ? "image_shape" : "block_shape");
    }
    if (image)
        agree(static_cast<std::int64_t>(image->size()), "image_shape");
    if (block)
        agree(static_cast<std::int64_t>(block->size()), "block_shape");
    std::vector<std::int64_t> pads, dilations, strides;
    if (onnx::getRepeatedAttribute(ctx, "pads", pads)) {
        if (pads.size() % 2 != 0)
            fail_shape_inference("Col2Im: attribute 'pads' must have an even number of values");
        agree(static_cast<std::int64_t>(pads.size() / 2), "attribute 'pads'");
    }
    if (onnx::getRepeatedAttribute(ctx, "dilations", dilations))
        agree(static_cast<std::int64_t>(dilations.size()), "attribute 'dilations'");
    if (onnx::getRepeatedAttribute(ctx, "strides", strides))
        agree(static_cast<std::int64_t>(strides.size()), "attribute 'strides'");

    std::int64_t blockVolume = 1;
    if (block)
        for (auto b : *block) {
            if (b <= 0)
                fail_shape_inference("Col2Im: 'block_shape' values must be > 0, got ", b);
            blockVolume *= b;
        }
    // With every size known, the column count L must equal the number of block positions.
    std::int64_t blocks = 1;
    if (image && block) {
        for (size_t i = 0; i < image->size(); ++i) {
            const std::int64_t pad = pads.empty() ? 0 : pads[i] + pads[i + image->size()];
            const std::int64_t dil = dilations.empty() ? 1 : dilations[i];
            const std::int64_t stride = strides.empty() ? 1 : strides[i];
            if (stride <= 0 || dil <= 0)
                fail_shape_inference("Col2Im: attributes 'strides' and 'dilations' must be > 0");
            const std::int64_t span = (*image)[i] + pad - dil * ((*block)[i] - 1) - 1;
            if (span < 0)
                fail_shape_inference("Col2Im: the dilated block exceeds the padded image on spatial axis ", i);
            blocks *= span / stride + 1;
        }
    }

    TensorShapeProto out;
    if (onnx::hasInputShape(ctx, 0)) {
        const auto &in = onnx::getInputShape(ctx, 0);
        if (in.dim_size() != 3)
            fail_shape_inference("Col2Im: 'input' must have rank 3 [N, C * prod(block_shape), L]");
        *out.add_dim() = in.dim(0);
        auto *c = out.add_dim();
        if (in.dim(1).has_dim_value() && block) {
            if (in.dim(1).dim_value() % blockVolume != 0)
                fail_shape_inference("Col2Im: input dim 1 (", in.dim(1).dim_value(),
                                     ") is not a multiple of the block volume ", blockVolume);
            c->set_dim_value(in.dim(1).dim_value() / blockVolume);
        } else if (block && blockVolume == 1) {
            *c = in.dim(1);
        }
        if (in.dim(2).has_dim_value() && image && block && in.dim(2).dim_value() != blocks)
            fail_shape_inference("Col2Im: input dim 2 (", in.dim(2).dim_value(), ") differs from the ", blocks,
                                 " block positions the image, block, pads, dilations and strides give");
    } else {
        out.add_dim();
        out.add_dim();
    }
    if (spatial < 0)
        return; // the output rank is unknown
    for (std::int64_t i = 0; i < spatial; ++i) {
        auto *d = out.add_dim();
        if (image)
            d->set_dim_value((*image)[static_cast<size_t>(i)]);
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema col2Im18()
{
    OpSchema s;
    s.SetName("Col2Im")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Folds columns of image blocks back into a batched N-D image, the inverse of an im2col unfold "
                "(like torch.nn.Fold). Column l of `input` holds the C * prod(block_shape) values of the l-th block "
                "position, positions counted in row-major order over the spatial axes; values of overlapping blocks "
                "are summed. The block positions follow from image_shape, block_shape, pads, dilations and strides "
                "as in a convolution.")
        .Input(0, "input", "[N, C * prod(block_shape), L], L the number of block positions", "T", OpSchema::Single,
               true, 1, kDiff)
        .Input(1, "image_shape", "1-D spatial sizes of the output image", "tensor(int64)", OpSchema::Single, true, 1,
               kNonDiff)
        .Input(2, "block_shape", "1-D block sizes per spatial axis, before dilation", "tensor(int64)",
               OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "output", "[N, C, image_shape...]", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("dilations", "spacing of block elements per spatial axis (default 1)", AttributeProto::INTS, false)
        .Attr("pads", "padding per spatial axis, all starts then all ends, each >= 0 (default 0)", AttributeProto::INTS,
              false)
        .Attr("strides", "step between block positions per spatial axis (default 1)", AttributeProto::INTS, false)
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeAndShapeInferenceFunction(inferCol2Im);
    return s;
}

// ---- Bitwise ops, CumProd ----------------------------------------------------------------------------

void inferBroadcastBinary(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (onnx::hasInputShape(ctx, 0) && onnx::hasInputShape(ctx, 1)) {
        TensorShapeProto out;
        onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0), onnx::getInputShape(ctx, 1), out);
        onnx::updateOutputShape(ctx, 0, out);
    }
}

OpSchema bitwiseBinary(const char *op, const char *operation)
{
    OpSchema s;
    s.SetName(op)
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(std::string("Bitwise ") + operation + " of A and B, element by element, with multidirectional "
                "(NumPy-style) broadcasting of the two shapes.")
        .Input(0, "A", "first operand", "T", OpSchema::Single, true, 1, kNonDiff)
        .Input(1, "B", "second operand", "T", OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "C", "the result, of the broadcast shape", "T", OpSchema::Single, true, 1, kNonDiff)
        .TypeConstraint("T", integerTypes(), "integer tensors")
        .TypeAndShapeInferenceFunction(inferBroadcastBinary);
    return s;
}

OpSchema bitwiseNot18()
{
    OpSchema s;
    s.SetName("BitwiseNot")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Flips every bit of each element of X.")
        .Input(0, "X", "integer tensor", "T", OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "Y", "the complement, of X's shape", "T", OpSchema::Single, true, 1, kNonDiff)
        .TypeConstraint("T", integerTypes(), "integer tensors")
        .TypeAndShapeInferenceFunction(propagateTypeAndShape);
    return s;
}

void inferCumProd(InferenceContext &ctx)
{
    propagateTypeAndShape(ctx);
    const auto axis = constantInts(ctx, 1, "CumProd", "axis");
    if (!axis)
        return;
    if (axis->size() != 1)
        fail_shape_inference("CumProd: 'axis' must hold one value, it holds ", axis->size());
    if (onnx::hasInputShape(ctx, 0)) {
        const int rank = onnx::getInputShape(ctx, 0).dim_size();
        if ((*axis)[0] < -rank || (*axis)[0] >= rank)
            fail_shape_inference("CumProd: 'axis' (", (*axis)[0], ") is outside [-", rank, ", ", rank - 1, "]");
    }
}

OpSchema cumProd26()
{
    OpSchema s;
    s.SetName("CumProd")
        .SetDomain("")
        .SinceVersion(26)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Running product of `x` along `axis`: element j of the output is the product of elements 0..j. "
                "exclusive=1 leaves out element j itself (the first output is 1); reverse=1 runs from the end of "
                "the axis towards its start.")
        .Input(0, "x", "the tensor to accumulate", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "axis", "0-D axis in [-rank(x), rank(x)-1]; negative counts from the back", "T2", OpSchema::Single,
               true, 1, kNonDiff)
        .Output(0, "y", "running products, of x's shape and type", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("exclusive", "1: each product leaves out its own element", AttributeProto::INT, static_cast<std::int64_t>(0))
        .Attr("reverse", "1: accumulate from the end of the axis", AttributeProto::INT, static_cast<std::int64_t>(0))
        .TypeConstraint("T",
                        {"tensor(uint32)", "tensor(uint64)", "tensor(int32)", "tensor(int64)", "tensor(float16)",
                         "tensor(float)", "tensor(double)", "tensor(bfloat16)"},
                        "numeric tensors")
        .TypeConstraint("T2", {"tensor(int32)", "tensor(int64)"}, "axis as int32 or int64")
        .TypeAndShapeInferenceFunction(inferCumProd);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> tensorOpSchemas2()
{
    return {centerCropPad18(),
            col2Im18(),
            bitwiseBinary("BitwiseAnd", "and"),
            bitwiseBinary("BitwiseOr", "or"),
            bitwiseBinary("BitwiseXor", "exclusive or"),
            bitwiseNot18(),
            cumProd26()};
}

} // namespace portolan::opset
