// Standard-domain schemas of opsets 18–27 for AffineGrid, GridSample, DFT, ImageDecoder, the Mish,
// Gelu and Swish activations and CausalConvWithState: the second half of StandardSchemasVision.cpp,
// whose visionOpSchemas() includes them.
#include "opset/SchemaInference.h"
#include "opset/SchemaSupport.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::opset {

namespace {

// `a` followed by `b`.
std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A constant scalar input; `what` names it in the error when it is not a scalar.
std::optional<int64_t> constantScalar(InferenceContext &ctx, size_t i, const char *op, const char *what)
{
    const auto values = constantInts(ctx, i);
    if (!values)
        return std::nullopt;
    if (ctx.getInputData(i)->dims_size() != 0 || values->size() != 1)
        fail_shape_inference(op, ": input '", what, "' must be a scalar");
    return values->front();
}

// ---- AffineGrid-20

void inferAffineGrid(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    const TensorShapeProto *theta = shapeOf(ctx, 0);
    int spatial = 0; // 2 or 3 once known
    if (theta != nullptr) {
        if (theta->dim_size() != 3)
            fail_shape_inference("AffineGrid: input theta must have rank 3, (N, 2, 3) or (N, 3, 4)");
        const Dim &rows = theta->dim(1), &cols = theta->dim(2);
        if (rows.has_dim_value())
            spatial = static_cast<int>(rows.dim_value());
        else if (cols.has_dim_value())
            spatial = static_cast<int>(cols.dim_value()) - 1;
        if ((spatial != 0 && spatial != 2 && spatial != 3) || (rows.has_dim_value() && rows.dim_value() != spatial) ||
            (cols.has_dim_value() && cols.dim_value() != spatial + 1))
            fail_shape_inference("AffineGrid: input theta must be (N, 2, 3) or (N, 3, 4)");
    }
    const std::optional<TensorShapeProto> size = knownIntValues(ctx, 1);
    int sizeLength = 0;
    if (size)
        sizeLength = size->dim_size();
    else if (const TensorShapeProto *sizeShape = shapeOf(ctx, 1);
             sizeShape != nullptr && sizeShape->dim_size() == 1 && sizeShape->dim(0).has_dim_value())
        sizeLength = static_cast<int>(sizeShape->dim(0).dim_value());
    if (sizeLength != 0) {
        if (sizeLength != 4 && sizeLength != 5)
            fail_shape_inference("AffineGrid: input size must hold 4 (N, C, H, W) or 5 (N, C, D, H, W) values");
        if (spatial != 0 && sizeLength - 2 != spatial)
            fail_shape_inference("AffineGrid: theta is for ", spatial, "-D, input size has ", sizeLength, " values");
        spatial = sizeLength - 2;
    }
    if (spatial == 0)
        return;

    TensorShapeProto out;
    Dim *n = out.add_dim();
    if (size)
        mergeDim(*n, size->dim(0), "AffineGrid", "the inputs disagree on the batch size");
    if (theta != nullptr)
        mergeDim(*n, theta->dim(0), "AffineGrid", "the inputs disagree on the batch size");
    for (int i = 0; i < spatial; ++i) {
        Dim *d = out.add_dim();
        if (size) {
            if (size->dim(i + 2).has_dim_value() && size->dim(i + 2).dim_value() < 0)
                fail_shape_inference("AffineGrid: input size must not be negative");
            *d = size->dim(i + 2);
        }
    }
    out.add_dim()->set_dim_value(spatial);
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema affineGrid20()
{
    OpSchema s;
    s.SetName("AffineGrid").SetDomain("").SinceVersion(20).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Builds a sampling grid for GridSample from a batch of affine matrices: positions evenly spaced over "
             "[-1, 1] on each spatial axis of 'size' are multiplied, in homogeneous form, by theta. 2-D: theta "
             "(N, 2, 3), size (N, C, H, W), grid (N, H, W, 2); 3-D: theta (N, 3, 4), size (N, C, D, H, W), grid "
             "(N, D, H, W, 3). align_corners chooses whether ±1 mark the corner pixels' centres (1) or outer edges (0).")
        .Attr("align_corners", "1: -1 and 1 are the centres of the corner pixels; 0: their outer edges.",
              AttributeProto::INT, int64_t{0})
        .Input(0, "theta", "Affine matrices, (N, 2, 3) or (N, 3, 4).", "T1", OpSchema::Single, true, 1, kNonDiff)
        .Input(1, "size", "Target image size, (N, C, H, W) or (N, C, D, H, W).", "T2", OpSchema::Single, true, 1,
               kNonDiff)
        .Output(0, "grid", "Sampling positions, (N, H, W, 2) or (N, D, H, W, 3).", "T1", OpSchema::Single, true, 1,
                kDiff)
        .TypeConstraint("T1", floatTypes(), "Floating-point grid and theta.")
        .TypeConstraint("T2", {"tensor(int64)"}, "The size is int64.")
        .TypeAndShapeInferenceFunction(inferAffineGrid);
    return s;
}

// ---- GridSample-20

void inferGridSample(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    stringAttrOneOf(ctx, "GridSample", "mode", "linear", {"linear", "nearest", "cubic"});
    stringAttrOneOf(ctx, "GridSample", "padding_mode", "zeros", {"zeros", "border", "reflection"});
    const TensorShapeProto *x = shapeOf(ctx, 0);
    const TensorShapeProto *grid = shapeOf(ctx, 1);
    if (x == nullptr && grid == nullptr)
        return;
    const int rank = x != nullptr ? x->dim_size() : grid->dim_size();
    if (rank < 3)
        fail_shape_inference("GridSample: X and grid must have rank 3 or more, got ", rank);
    if (x != nullptr && grid != nullptr && grid->dim_size() != rank)
        fail_shape_inference("GridSample: X (rank ", rank, ") and grid (rank ", grid->dim_size(),
                             ") must have the same rank");
    if (grid != nullptr && grid->dim(rank - 1).has_dim_value() && grid->dim(rank - 1).dim_value() != rank - 2)
        fail_shape_inference("GridSample: grid's last dim must be the spatial rank ", rank - 2, ", got ",
                             grid->dim(rank - 1).dim_value());
    TensorShapeProto out;
    Dim *n = out.add_dim();
    Dim *c = out.add_dim();
    if (x != nullptr) {
        mergeDim(*n, x->dim(0), "GridSample", "the inputs disagree on the batch size");
        *c = x->dim(1);
    }
    if (grid != nullptr)
        mergeDim(*n, grid->dim(0), "GridSample", "the inputs disagree on the batch size");
    for (int i = 0; i < rank - 2; ++i) {
        Dim *d = out.add_dim();
        if (grid != nullptr)
            *d = grid->dim(i + 1);
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema gridSample20()
{
    OpSchema s;
    s.SetName("GridSample").SetDomain("").SinceVersion(20).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Samples X (N, C, D1, …, Dr) at the normalized positions of grid (N, O1, …, Or, r), giving Y (N, C, O1, "
             "…, Or). Each grid vector lists coordinates innermost axis first, with -1 and 1 the extremes of X "
             "(corner centres or corner edges per align_corners). Values are interpolated by mode (N-linear, nearest "
             "with ties to even, or N-cubic); positions outside X are handled by padding_mode. Opset 20 generalizes "
             "opset 16's 2-D op to any spatial rank and renames the modes bilinear/bicubic to linear/cubic.")
        .Attr("align_corners", "1: -1 and 1 are the centres of the corner pixels; 0: their outer edges.",
              AttributeProto::INT, int64_t{0})
        .Attr("mode", "Interpolation: linear (default), nearest or cubic.", AttributeProto::STRING, std::string("linear"))
        .Attr("padding_mode", "Values outside X: zeros (default), border (clamp) or reflection (mirror at the border, "
                              "repeatedly).",
              AttributeProto::STRING, std::string("zeros"))
        .Input(0, "X", "Input (N, C, D1, …, Dr).", "T1", OpSchema::Single, true, 1, kDiff)
        .Input(1, "grid", "Normalized sampling positions (N, O1, …, Or, r), mostly within [-1, 1].", "T2",
               OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "Y", "Sampled output (N, C, O1, …, Or); integer types are interpolated in floating point and cast "
                        "back.",
                "T1", OpSchema::Single, true, 1, kDiff)
        .TypeConstraint("T1",
                        concat(integerTypes(), concat(ieeeFloatTypes(), {"tensor(string)", "tensor(bool)",
                                                                         "tensor(complex64)", "tensor(complex128)"})),
                        "Any tensor type.")
        .TypeConstraint("T2", ieeeFloatTypes(), "Floating-point grid.")
        .TypeAndShapeInferenceFunction(inferGridSample);
    return s;
}

// ---- DFT-20

void inferDft(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    const int64_t onesided = onnx::getAttribute(ctx, "onesided", 0);
    const int64_t inverse = onnx::getAttribute(ctx, "inverse", 0);
    if ((onesided != 0 && onesided != 1) || (inverse != 0 && inverse != 1))
        fail_shape_inference("DFT: attributes onesided and inverse must be 0 or 1");
    const bool rfft = onesided == 1 && inverse == 0, irfft = onesided == 1 && inverse == 1;
    const TensorShapeProto *x = shapeOf(ctx, 0);
    if (x == nullptr)
        return;
    const int rank = x->dim_size();
    if (rank < 2)
        fail_shape_inference("DFT: input must have rank 2 or more (signal axes plus the complex axis)");
    const Dim &complexDim = x->dim(rank - 1);
    if (complexDim.has_dim_value() && complexDim.dim_value() != 1 && complexDim.dim_value() != 2)
        fail_shape_inference("DFT: the input's last dim must be 1 (real) or 2 (complex), got ", complexDim.dim_value());
    if (complexDim.has_dim_value() && rfft && complexDim.dim_value() != 1)
        fail_shape_inference("DFT: onesided=1 with inverse=0 needs real input (last dim 1)");
    if (complexDim.has_dim_value() && irfft && complexDim.dim_value() != 2)
        fail_shape_inference("DFT: onesided=1 with inverse=1 needs complex input (last dim 2)");

    TensorShapeProto out = *x;
    out.mutable_dim(rank - 1)->Clear();
    out.mutable_dim(rank - 1)->set_dim_value(irfft ? 1 : 2);

    const bool hasLength = hasInput(ctx, 1);
    int64_t axis = -2;
    if (hasInput(ctx, 2)) {
        const auto a = constantScalar(ctx, 2, "DFT", "axis");
        if (!a) {
            // Which axis changes is unknown; it changes only with dft_length or onesided.
            if (hasLength || onesided == 1)
                for (int i = 0; i < rank - 1; ++i)
                    out.mutable_dim(i)->Clear();
            onnx::updateOutputShape(ctx, 0, out);
            return;
        }
        axis = *a;
    }
    if (axis < -rank || axis == -1 || axis >= rank - 1)
        fail_shape_inference("DFT: axis ", axis, " is not a signal axis of a rank-", rank, " input (allowed: [", -rank,
                             ", -2] or [0, ", rank - 2, "])");
    Dim *signal = out.mutable_dim(static_cast<int>(axis < 0 ? axis + rank : axis));

    std::optional<int64_t> length; // the transform length, when known
    if (hasLength) {
        length = constantScalar(ctx, 1, "DFT", "dft_length");
        if (length && *length <= 0)
            fail_shape_inference("DFT: dft_length must be positive, got ", *length);
    } else if (signal->has_dim_value()) {
        length = irfft ? 2 * (signal->dim_value() - 1) : signal->dim_value();
    } else if (onesided == 0) {
        onnx::updateOutputShape(ctx, 0, out); // full transform of the input's own length: the axis keeps its dim
        return;
    }
    signal->Clear();
    if (length)
        signal->set_dim_value(rfft ? *length / 2 + 1 : *length);
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema dft20()
{
    OpSchema s;
    s.SetName("DFT").SetDomain("").SinceVersion(20).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Discrete Fourier transform (or its inverse, scaled by 1/n) along one signal axis. The last axis of input "
             "and output holds the real part (size 1) or real and imaginary parts (size 2). Opset 20 takes the axis as "
             "an optional scalar input (default -2). The signal is cut or zero-padded to dft_length. Output: complex, "
             "with dft_length points on the axis; onesided=1 forward (real input) keeps floor(dft_length / 2) + 1 "
             "points; onesided=1 inverse (complex input) returns a real signal of dft_length points (default 2 · (n - "
             "1)).")
        .Attr("inverse", "1: inverse transform.", AttributeProto::INT, int64_t{0})
        .Attr("onesided", "1: the half-spectrum form (forward: real in, half spectrum out; inverse: half spectrum in, "
                          "real out).",
              AttributeProto::INT, int64_t{0})
        .Input(0, "input", "Signal [signal_dim0, …, signal_dimN, 1 or 2] (real, or real and imaginary).", "T1",
               OpSchema::Single, true, 1, kNonDiff)
        .Input(1, "dft_length", "Scalar transform length: the signal is truncated or zero-padded to it. Default: the "
                                "axis size, or 2 · (size - 1) for the onesided inverse.",
               "T2", OpSchema::Optional, true, 1, kNonDiff)
        .Input(2, "axis", "Scalar signal axis, in [-r, -2] or [0, r - 2]; default -2.", "tensor(int64)",
               OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "output", "The transform; the signal axis and the last axis resized as described above.", "T1",
                OpSchema::Single, true, 1, OpSchema::Unknown)
        .TypeConstraint("T1", floatTypes(), "Floating-point tensors.")
        .TypeConstraint("T2", {"tensor(int32)", "tensor(int64)"}, "Integer length.")
        .TypeAndShapeInferenceFunction(inferDft);
    return s;
}

// ---- ImageDecoder-20

OpSchema imageDecoder20()
{
    OpSchema s;
    s.SetName("ImageDecoder").SetDomain("").SinceVersion(20).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Decodes one encoded image (BMP, JPEG, JPEG 2000, TIFF, PNG, WebP or the PNM family) from a 1-D byte "
             "tensor into a (height, width, channels) uint8 image, channels last, in pixel_format's channel order. "
             "JPEG chroma is upsampled the libjpeg-turbo \"fancy\" way. A stream that cannot be decoded gives an empty "
             "tensor.")
        .Attr("pixel_format", "RGB (default), BGR or Grayscale.", AttributeProto::STRING, std::string("RGB"))
        .Input(0, "encoded_stream", "The encoded file's bytes, 1-D.", "T1", OpSchema::Single, true, 1, kNonDiff)
        .Output(0, "image", "The decoded image (H, W, C).", "T2", OpSchema::Single, true, 1, kNonDiff)
        .TypeConstraint("T1", {"tensor(uint8)"}, "Bytes.")
        .TypeConstraint("T2", {"tensor(uint8)"}, "8-bit pixels.")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            stringAttrOneOf(ctx, "ImageDecoder", "pixel_format", "RGB", {"RGB", "BGR", "Grayscale"});
            if (const TensorShapeProto *in = shapeOf(ctx, 0); in != nullptr && in->dim_size() != 1)
                fail_shape_inference("ImageDecoder: encoded_stream must be 1-D, got rank ", in->dim_size());
            onnx::updateOutputElemType(ctx, 0, TensorProto::UINT8);
            // Height and width come from the stream; so does the channel count, since a failed decode is empty.
            TensorShapeProto out;
            for (int i = 0; i < 3; ++i)
                out.add_dim();
            onnx::updateOutputShape(ctx, 0, out);
        });
    return s;
}

// ---- element-wise activations

OpSchema activation(const char *name, int version, const char *doc, std::vector<std::string> types)
{
    OpSchema s;
    s.SetName(name).SetDomain("").SinceVersion(version).SetLocation(__FILE__, __LINE__);
    s.SetDoc(doc)
        .Input(0, "X", "Input tensor.", "T", OpSchema::Single, true, 1, kDiff)
        .Output(0, "Y", "Output tensor, X's shape.", "T", OpSchema::Single, true, 1, kDiff)
        .TypeConstraint("T", std::move(types), "Floating-point tensors.")
        .TypeAndShapeInferenceFunction(propagateTypeAndShape);
    return s;
}

OpSchema mish18()
{
    return activation("Mish", 18, "Mish activation, element-wise: y = x · tanh(softplus(x)) = x · tanh(ln(1 + eˣ)).",
                      ieeeFloatTypes());
}

OpSchema gelu20()
{
    OpSchema s = activation("Gelu", 20,
                            "Gaussian error linear unit, element-wise: y = x · Φ(x) = 0.5 · x · (1 + erf(x / √2)). With "
                            "approximate=\"tanh\" it uses 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))) instead.",
                            concat(ieeeFloatTypes(), {"tensor(bfloat16)"}));
    s.Attr("approximate", "none (default, the exact erf form) or tanh.", AttributeProto::STRING, std::string("none"));
    s.TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
        stringAttrOneOf(ctx, "Gelu", "approximate", "none", {"none", "tanh"});
        propagateTypeAndShape(ctx);
    });
    return s;
}

OpSchema swish24()
{
    OpSchema s = activation("Swish", 24, "Swish activation, element-wise: y = x · sigmoid(alpha · x).",
                            {"tensor(float16)", "tensor(float)", "tensor(bfloat16)", "tensor(double)"});
    s.Attr("alpha", "Factor on x inside the sigmoid.", AttributeProto::FLOAT, 1.0f);
    return s;
}

// ---- CausalConvWithState-27

void inferCausalConv(InferenceContext &ctx)
{
    const char *op = "CausalConvWithState";
    stringAttrOneOf(ctx, op, "activation", "none", {"none", "silu", "swish"});
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (ctx.getNumOutputs() > 1)
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 1);
    auto rankCheck = [&](size_t i, int rank, const char *what) -> const TensorShapeProto * {
        const TensorShapeProto *p = hasInput(ctx, i) ? shapeOf(ctx, i) : nullptr;
        if (p != nullptr && p->dim_size() != rank)
            fail_shape_inference(op, ": input ", what, " must have rank ", rank, ", got ", p->dim_size());
        return p;
    };
    const TensorShapeProto *x = rankCheck(0, 3, "input");
    const TensorShapeProto *w = rankCheck(1, 3, "weight");
    const TensorShapeProto *bias = rankCheck(2, 1, "bias");
    const TensorShapeProto *past = rankCheck(3, 3, "past_state");

    // B, C and k - 1 are shared by several inputs: take what is known and require agreement.
    Dim b, c, kMinus1;
    if (x != nullptr) {
        mergeDim(b, x->dim(0), op, "the inputs disagree on batch_size");
        mergeDim(c, x->dim(1), op, "the inputs disagree on channels");
    }
    if (w != nullptr) {
        mergeDim(c, w->dim(0), op, "the inputs disagree on channels");
        if (w->dim(1).has_dim_value() && w->dim(1).dim_value() != 1)
            fail_shape_inference(op, ": weight must be (channels, 1, k), got ", w->dim(1).dim_value(), " as dim 1");
        if (w->dim(2).has_dim_value()) {
            if (w->dim(2).dim_value() < 1)
                fail_shape_inference(op, ": the kernel size k must be at least 1");
            kMinus1.set_dim_value(w->dim(2).dim_value() - 1);
        }
    }
    if (bias != nullptr)
        mergeDim(c, bias->dim(0), op, "the inputs disagree on channels");
    if (past != nullptr) {
        mergeDim(b, past->dim(0), op, "the inputs disagree on batch_size");
        mergeDim(c, past->dim(1), op, "the inputs disagree on channels");
        mergeDim(kMinus1, past->dim(2), op,
                 "the inputs disagree on k - 1 (weight's kernel size vs. past_state's length)");
    }
    if (x != nullptr) {
        TensorShapeProto out = *x;
        *out.mutable_dim(0) = b;
        *out.mutable_dim(1) = c;
        onnx::updateOutputShape(ctx, 0, out);
    }
    if (ctx.getNumOutputs() > 1)
        onnx::updateOutputShape(ctx, 1, {b, c, kMinus1});
}

OpSchema causalConvWithState27()
{
    OpSchema s;
    s.SetName("CausalConvWithState").SetDomain("").SinceVersion(27).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Causal depthwise 1-D convolution carrying state between calls (the conv step of Mamba and Gated "
             "DeltaNet layers, replacing Concat + Conv + Slice). The sequence is input prefixed by past_state (zeros "
             "when absent); each channel is convolved with its own k-tap kernel so that output position t sees only "
             "positions ≤ t; bias and then the optional SiLU are applied. present_state is the last k - 1 positions of "
             "the prefixed sequence, for the next call. Tensors are (batch, channels, length).")
        .Attr("activation", "Fused activation: none (default), silu or swish (the same function).",
              AttributeProto::STRING, std::string("none"))
        .Input(0, "input", "Sequence (batch_size, channels, length).", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "weight", "Depthwise kernel (channels, 1, k), Conv's weight layout with group = channels.", "T",
               OpSchema::Single, true, 1, kDiff)
        .Input(2, "bias", "Per-channel bias (channels).", "T", OpSchema::Optional, true, 1, kDiff)
        .Input(3, "past_state", "Previous call's state (batch_size, channels, k - 1); zeros when absent.", "T",
               OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "output", "Convolution output, input's shape.", "T", OpSchema::Single, true, 1, kDiff)
        .Output(1, "present_state", "New state (batch_size, channels, k - 1): the last k - 1 positions of past_state "
                                    "followed by input.",
                "T", OpSchema::Single, true, 1, kNonDiff)
        .TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "Floating-point tensors.")
        .TypeAndShapeInferenceFunction(inferCausalConv);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> visionOpSchemas2()
{
    return {affineGrid20(), gridSample20(), dft20(),   imageDecoder20(),
            mish18(),       gelu20(),       swish24(), causalConvWithState27()};
}

} // namespace portolan::opset
