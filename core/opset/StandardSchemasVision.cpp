// Standard-domain schemas of opsets 18–27 for pooling (LpPool, AveragePool), Resize,
// GroupNormalization and DeformConv; StandardSchemasVision2.cpp holds AffineGrid, GridSample, DFT,
// ImageDecoder, the Mish, Gelu and Swish activations and CausalConvWithState, and visionOpSchemas()
// below returns both halves. Written from ONNX's operator documentation; each inference function
// computes what the spec's shape rule fixes and leaves the rest unknown.
#include "opset/SchemaInference.h"
#include "opset/SchemaSupport.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/defs/tensor_proto_util.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace portolan::opset {

namespace {

// An INTS attribute of `count` positive entries, or `count` ones when absent.
std::vector<int64_t> positiveInts(InferenceContext &ctx, const char *op, const char *name, size_t count)
{
    std::vector<int64_t> values;
    if (!onnx::getRepeatedAttribute(ctx, name, values))
        return std::vector<int64_t>(count, 1);
    if (values.size() != count)
        fail_shape_inference(op, ": attribute ", name, " has ", values.size(), " entries, expected ", count);
    for (int64_t v : values)
        if (v <= 0)
            fail_shape_inference(op, ": attribute ", name, " must hold positive values");
    return values;
}

std::vector<int64_t> explicitPads(InferenceContext &ctx, const char *op, size_t spatial)
{
    std::vector<int64_t> pads;
    if (!onnx::getRepeatedAttribute(ctx, "pads", pads))
        return std::vector<int64_t>(2 * spatial, 0);
    if (pads.size() != 2 * spatial)
        fail_shape_inference(op, ": attribute pads has ", pads.size(), " entries, expected ", 2 * spatial);
    for (int64_t p : pads)
        if (p < 0)
            fail_shape_inference(op, ": attribute pads must not be negative");
    return pads;
}

// Windows that fit along one axis: floor (or ceil) of (in + pads - window) / stride, plus one.
int64_t windowCount(const char *op, size_t axis, int64_t in, int64_t window, int64_t stride, int64_t padBegin,
                    int64_t padEnd, bool ceilMode)
{
    const int64_t span = in + padBegin + padEnd - window;
    if (span < 0)
        fail_shape_inference(op, ": the window (", window, ") is larger than the padded input (",
                             in + padBegin + padEnd, ") on spatial axis ", axis);
    int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
    // ceil_mode never starts a window in the end padding (ONNX's reference and PyTorch agree).
    if (ceilMode && (out - 1) * stride >= in + padBegin)
        --out;
    return out;
}

// ---- pooling (LpPool-18, AveragePool-19)

void inferPool(InferenceContext &ctx, const char *op)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    std::vector<int64_t> kernel;
    if (!onnx::getRepeatedAttribute(ctx, "kernel_shape", kernel))
        fail_shape_inference(op, ": attribute kernel_shape is required");
    const std::string autoPad =
        stringAttrOneOf(ctx, op, "auto_pad", "NOTSET", {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});
    if (autoPad != "NOTSET" && ctx.getAttribute("pads") != nullptr)
        fail_shape_inference(op, ": attributes pads and auto_pad (", autoPad, ") cannot both be given");
    const int64_t ceilMode = onnx::getAttribute(ctx, "ceil_mode", 0);
    if (ceilMode != 0 && ceilMode != 1)
        fail_shape_inference(op, ": attribute ceil_mode must be 0 or 1");

    const TensorShapeProto *x = shapeOf(ctx, 0);
    if (x == nullptr)
        return;
    if (x->dim_size() < 3)
        fail_shape_inference(op, ": input X must have rank 3 or more (N, C, spatial…), got ", x->dim_size());
    const size_t spatial = static_cast<size_t>(x->dim_size() - 2);
    if (kernel.size() != spatial)
        fail_shape_inference(op, ": attribute kernel_shape has ", kernel.size(), " entries, X has ", spatial,
                             " spatial axes");
    for (int64_t k : kernel)
        if (k <= 0)
            fail_shape_inference(op, ": attribute kernel_shape must hold positive values");
    const auto strides = positiveInts(ctx, op, "strides", spatial);
    const auto dilations = positiveInts(ctx, op, "dilations", spatial);
    const auto pads = explicitPads(ctx, op, spatial);

    TensorShapeProto out;
    *out.add_dim() = x->dim(0);
    *out.add_dim() = x->dim(1);
    for (size_t i = 0; i < spatial; ++i) {
        const Dim &inDim = x->dim(static_cast<int>(i) + 2);
        Dim *d = out.add_dim();
        const int64_t window = (kernel[i] - 1) * dilations[i] + 1;
        const int64_t s = strides[i];
        if (!inDim.has_dim_value()) {
            // A symbolic size survives only where the output size equals the input size.
            const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
            const bool identity = s == 1 && (same ? true
                                             : autoPad == "VALID" ? window == 1
                                                                  : pads[i] + pads[i + spatial] == window - 1);
            if (identity)
                *d = inDim;
            continue;
        }
        const int64_t in = inDim.dim_value();
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
            d->set_dim_value((in + s - 1) / s); // ceil(in / stride), with or without ceil_mode
        else if (autoPad == "VALID")
            d->set_dim_value(windowCount(op, i, in, window, s, 0, 0, false)); // both modes' formulas agree
        else
            d->set_dim_value(windowCount(op, i, in, window, s, pads[i], pads[i + spatial], ceilMode == 1));
    }
    onnx::updateOutputShape(ctx, 0, out);
}

const char *const kAutoPadDoc =
    "Deprecated automatic padding: NOTSET (default, use `pads`), SAME_UPPER or SAME_LOWER (pad so that each spatial "
    "output size is ceil(input / stride); an odd total puts the extra cell at the end for SAME_UPPER, at the start "
    "for SAME_LOWER) or VALID (no padding).";
const char *const kPadsDoc = "Padding per spatial axis, [x1_begin, x2_begin, …, x1_end, x2_end, …], each ≥ 0; not "
                             "together with auto_pad. Default 0.";
const char *const kPoolShapeDoc =
    " With explicit pads, each spatial output size is floor((in + pad_begin + pad_end - ((k - 1) * dilation + 1)) / "
    "stride + 1), or the ceiling with ceil_mode=1 (where a last window that would start in the end padding is "
    "dropped). With auto_pad SAME_* it is ceil(in / stride); with VALID, floor((in - ((k - 1) * dilation + 1)) / "
    "stride) + 1.";

// LpPool or AveragePool: all they share, plus the INT attribute each has of its own.
OpSchema poolSchema(const char *op, int version, const char *doc, const char *ownAttr, const char *ownAttrDoc,
                    int64_t ownAttrDefault)
{
    OpSchema s;
    s.SetName(op).SetDomain("").SinceVersion(version).SetLocation(__FILE__, __LINE__);
    s.SetDoc(std::string(doc) + kPoolShapeDoc)
        .Attr("auto_pad", kAutoPadDoc, AttributeProto::STRING, std::string("NOTSET"))
        .Attr("ceil_mode", "1: round the output size up instead of down.", AttributeProto::INT, int64_t{0})
        .Attr("dilations", "Spacing between kernel taps per spatial axis; default 1.", AttributeProto::INTS, false)
        .Attr("kernel_shape", "Window size per spatial axis.", AttributeProto::INTS, true)
        .Attr("pads", kPadsDoc, AttributeProto::INTS, false)
        .Attr("strides", "Step per spatial axis; default 1.", AttributeProto::INTS, false)
        .Attr(ownAttr, ownAttrDoc, AttributeProto::INT, ownAttrDefault)
        .Input(0, "X", "Input (N, C, D1, …, Dn).", "T", OpSchema::Single, true, 1, kDiff)
        .Output(0, "Y", "Pooled output (N, C, O1, …, On).", "T", OpSchema::Single, true, 1, kDiff)
        .TypeConstraint("T", ieeeFloatTypes(), "Floating-point tensors.")
        .TypeAndShapeInferenceFunction([op](InferenceContext &ctx) { inferPool(ctx, op); });
    return s;
}

OpSchema lpPool18()
{
    return poolSchema("LpPool", 18,
                      "Lp pooling: each output element is the p-norm, (Σ|x|^p)^(1/p), of the input values under one "
                      "(possibly dilated) window of X; padded cells add nothing.",
                      "p", "Order of the norm.", 2);
}

OpSchema averagePool19()
{
    return poolSchema("AveragePool", 19,
                      "Average pooling: each output element is the mean of the input values under one (possibly "
                      "dilated) window of X. Padded cells count in the divisor only with count_include_pad=1.",
                      "count_include_pad", "1: padded cells count in each window's divisor.", 0);
}

// ---- Resize-18, Resize-19

// Whether an optional input is really given: legacy exporters pass an empty tensor for "absent".
bool resizeInputGiven(InferenceContext &ctx, size_t i)
{
    if (!hasInput(ctx, i))
        return false;
    if (const TensorProto *t = ctx.getInputData(i)) {
        int64_t count = 1;
        for (int64_t d : t->dims())
            count *= d;
        return count != 0;
    }
    const TensorShapeProto *shape = shapeOf(ctx, i);
    return !(shape != nullptr && shape->dim_size() == 1 && shape->dim(0).has_dim_value() && shape->dim(0).dim_value() == 0);
}

void inferResize(InferenceContext &ctx, int version)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    stringAttrOneOf(ctx, "Resize", "mode", "nearest", {"nearest", "linear", "cubic"});
    stringAttrOneOf(ctx, "Resize", "nearest_mode", "round_prefer_floor",
                    {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
    if (version >= 19)
        stringAttrOneOf(ctx, "Resize", "coordinate_transformation_mode", "half_pixel",
                        {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                         "tf_crop_and_resize"});
    else
        stringAttrOneOf(ctx, "Resize", "coordinate_transformation_mode", "half_pixel",
                        {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"});
    const std::string policy =
        stringAttrOneOf(ctx, "Resize", "keep_aspect_ratio_policy", "stretch", {"stretch", "not_larger", "not_smaller"});

    const bool hasScales = resizeInputGiven(ctx, 2);
    const bool hasSizes = resizeInputGiven(ctx, 3);
    if (hasScales == hasSizes)
        fail_shape_inference("Resize: exactly one of the inputs 'scales' and 'sizes' must be given");
    std::vector<int64_t> axes;
    const bool hasAxes = onnx::getRepeatedAttribute(ctx, "axes", axes);
    const std::optional<TensorShapeProto> sizes = hasSizes ? knownIntValues(ctx, 3) : std::nullopt;

    const TensorShapeProto *x = shapeOf(ctx, 0);
    if (x == nullptr) {
        // Stretched sizes over every axis are the output shape by themselves.
        if (sizes && !hasAxes && policy == "stretch")
            onnx::updateOutputShape(ctx, 0, *sizes);
        return;
    }
    const int64_t rank = x->dim_size();
    if (hasAxes) {
        std::set<int64_t> seen;
        for (int64_t &a : axes) {
            if (a < -rank || a >= rank)
                fail_shape_inference("Resize: attribute axes holds ", a, ", outside [", -rank, ", ", rank - 1, "]");
            if (a < 0)
                a += rank;
            if (!seen.insert(a).second)
                fail_shape_inference("Resize: attribute axes repeats axis ", a);
        }
    } else {
        for (int64_t a = 0; a < rank; ++a)
            axes.push_back(a);
    }

    TensorShapeProto out = *x; // axes not resized keep their size, symbolic or not
    auto unknownOnAxes = [&] {
        for (int64_t a : axes)
            out.mutable_dim(static_cast<int>(a))->Clear();
    };
    if (hasSizes) {
        if (!sizes) {
            unknownOnAxes();
        } else {
            if (static_cast<size_t>(sizes->dim_size()) != axes.size())
                fail_shape_inference("Resize: input 'sizes' has ", sizes->dim_size(), " entries, expected ", axes.size(),
                                     hasAxes ? " (the length of axes)" : " (the rank of X)");
            for (const Dim &d : sizes->dim())
                if (d.has_dim_value() && d.dim_value() < 0)
                    fail_shape_inference("Resize: input 'sizes' must not be negative");
            if (policy == "stretch") {
                for (size_t i = 0; i < axes.size(); ++i)
                    *out.mutable_dim(static_cast<int>(axes[i])) = sizes->dim(static_cast<int>(i));
            } else {
                // One common scale keeps the aspect ratio: the least (not_larger) or greatest (not_smaller) of
                // sizes[i] / in[axes[i]]; each resized size is that scale times the input, rounded half up.
                std::optional<double> scale;
                bool known = true;
                for (size_t i = 0; i < axes.size() && known; ++i) {
                    const Dim &in = x->dim(static_cast<int>(axes[i]));
                    const Dim &want = sizes->dim(static_cast<int>(i));
                    known = in.has_dim_value() && in.dim_value() > 0 && want.has_dim_value();
                    if (known) {
                        const double r = static_cast<double>(want.dim_value()) / static_cast<double>(in.dim_value());
                        scale = !scale ? r : policy == "not_larger" ? std::min(*scale, r) : std::max(*scale, r);
                    }
                }
                if (!known) {
                    unknownOnAxes();
                } else {
                    for (int64_t a : axes) {
                        const double v = *scale * static_cast<double>(x->dim(static_cast<int>(a)).dim_value());
                        out.mutable_dim(static_cast<int>(a))->set_dim_value(static_cast<int64_t>(std::floor(v + 0.5)));
                    }
                }
            }
        }
    } else {
        const TensorProto *scales = ctx.getInputData(2);
        if (scales == nullptr || scales->data_type() != TensorProto::FLOAT) {
            unknownOnAxes();
        } else {
            const auto values = onnx::ParseData<float>(scales);
            if (values.size() != axes.size())
                fail_shape_inference("Resize: input 'scales' has ", values.size(), " entries, expected ", axes.size(),
                                     hasAxes ? " (the length of axes)" : " (the rank of X)");
            for (size_t i = 0; i < axes.size(); ++i) {
                if (!(values[i] > 0.0f))
                    fail_shape_inference("Resize: input 'scales' must be positive, got ", values[i]);
                Dim *d = out.mutable_dim(static_cast<int>(axes[i]));
                if (d->has_dim_value())
                    d->set_dim_value(static_cast<int64_t>(
                        std::floor(static_cast<double>(d->dim_value()) * static_cast<double>(values[i]))));
                else if (values[i] != 1.0f)
                    d->Clear();
            }
        }
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema resize(int version)
{
    OpSchema s;
    s.SetName("Resize").SetDomain("").SinceVersion(version).SetLocation(__FILE__, __LINE__);
    s.SetDoc(std::string(
                 "Resamples X to a new size by nearest, (multi-)linear or (multi-)cubic interpolation. The target is "
                 "given either as 'scales' (each output size is floor(input size × scale)) or as 'sizes' (read "
                 "according to keep_aspect_ratio_policy), for every axis or for the axes listed in `axes`; other axes "
                 "keep their size. coordinate_transformation_mode maps an output coordinate back onto the input. With "
                 "antialias=1, linear and cubic downscaling widen their filter by 1 / scale.") +
             (version >= 19 ? " Opset 19 adds the half_pixel_symmetric coordinate mode, which centres the sampling "
                              "grid when the output size had to be rounded."
                            : ""));
    s.Attr("antialias", "1: linear and cubic modes low-pass filter when downscaling.", AttributeProto::INT, int64_t{0})
        .Attr("axes", "The axes 'roi', 'scales' and 'sizes' refer to (negative counts from the back; no repeats). "
                      "Default: every axis.",
              AttributeProto::INTS, false)
        .Attr("coordinate_transformation_mode",
              version >= 19 ? "How an output coordinate maps to the input: half_pixel (default), half_pixel_symmetric, "
                              "pytorch_half_pixel, align_corners, asymmetric or tf_crop_and_resize (uses 'roi')."
                            : "How an output coordinate maps to the input: half_pixel (default), pytorch_half_pixel, "
                              "align_corners, asymmetric or tf_crop_and_resize (uses 'roi').",
              AttributeProto::STRING, std::string("half_pixel"))
        .Attr("cubic_coeff_a", "The cubic kernel's coefficient a (cubic mode only).", AttributeProto::FLOAT, -0.75f)
        .Attr("exclude_outside", "1: taps outside the input get weight 0 and the rest are renormalized.",
              AttributeProto::INT, int64_t{0})
        .Attr("extrapolation_value", "Output value for points outside the input in tf_crop_and_resize mode.",
              AttributeProto::FLOAT, 0.0f)
        .Attr("keep_aspect_ratio_policy",
              "How 'sizes' is read: stretch (default: exactly those sizes), not_larger (one scale, the smallest "
              "sizes[i] / in[axes[i]], so no axis exceeds its size) or not_smaller (the largest ratio, so none falls "
              "short); the scaled sizes are rounded half up. Not used with 'scales'.",
              AttributeProto::STRING, std::string("stretch"))
        .Attr("mode", "Interpolation: nearest (default), linear or cubic.", AttributeProto::STRING, std::string("nearest"))
        .Attr("nearest_mode", "Rounding of nearest mode: round_prefer_floor (default), round_prefer_ceil, floor or ceil.",
              AttributeProto::STRING, std::string("round_prefer_floor"))
        .Input(0, "X", "The tensor to resize.", "T1", OpSchema::Single, true, 1, kDiff)
        .Input(1, "roi", "1-D [starts…, ends…] of the normalized region of interest, per axis of X or of `axes`; "
                         "only tf_crop_and_resize reads it.",
               "T2", OpSchema::Optional, true, 1, kNonDiff)
        .Input(2, "scales", "1-D positive scale per axis of X or of `axes`. Exactly one of scales and sizes.",
               "tensor(float)", OpSchema::Optional, true, 1, kNonDiff)
        .Input(3, "sizes", "1-D target size per axis of X or of `axes`, read per keep_aspect_ratio_policy.",
               "tensor(int64)", OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "Y", "The resized tensor.", "T1", OpSchema::Single, true, 1, kDiff)
        .TypeConstraint("T1", allTensorTypes(), "Any tensor type.")
        .TypeConstraint("T2", ieeeFloatTypes(), "Floating-point roi.")
        .TypeAndShapeInferenceFunction([version](InferenceContext &ctx) { inferResize(ctx, version); });
    return s;
}

// ---- GroupNormalization-18, -21

void inferGroupNorm(InferenceContext &ctx, bool perChannel)
{
    propagateTypeAndShape(ctx);
    const AttributeProto *groupsAttr = ctx.getAttribute("num_groups");
    if (groupsAttr == nullptr || !groupsAttr->has_i())
        fail_shape_inference("GroupNormalization: attribute num_groups is required");
    const int64_t groups = groupsAttr->i();
    if (groups <= 0)
        fail_shape_inference("GroupNormalization: attribute num_groups must be positive, got ", groups);
    const TensorShapeProto *x = shapeOf(ctx, 0);
    if (x != nullptr && x->dim_size() < 2)
        fail_shape_inference("GroupNormalization: input X must have rank 2 or more (N, C, …), got ", x->dim_size());
    const Dim *channels = x != nullptr ? &x->dim(1) : nullptr;
    if (channels != nullptr && channels->has_dim_value() && channels->dim_value() % groups != 0)
        fail_shape_inference("GroupNormalization: the channel count ", channels->dim_value(),
                             " is not divisible by num_groups ", groups);
    for (size_t i : {size_t{1}, size_t{2}}) {
        const TensorShapeProto *p = shapeOf(ctx, i);
        if (p == nullptr)
            continue;
        const char *name = i == 1 ? "scale" : "bias";
        if (p->dim_size() != 1)
            fail_shape_inference("GroupNormalization: input ", name, " must be 1-D, got rank ", p->dim_size());
        if (!p->dim(0).has_dim_value())
            continue;
        if (!perChannel && p->dim(0).dim_value() != groups)
            fail_shape_inference("GroupNormalization: input ", name, " has ", p->dim(0).dim_value(),
                                 " entries, expected num_groups = ", groups);
        if (perChannel && channels != nullptr && channels->has_dim_value() &&
            p->dim(0).dim_value() != channels->dim_value())
            fail_shape_inference("GroupNormalization: input ", name, " has ", p->dim(0).dim_value(),
                                 " entries, expected the channel count ", channels->dim_value());
    }
}

OpSchema groupNormalization(int version)
{
    const bool perChannel = version >= 21;
    OpSchema s;
    s.SetName("GroupNormalization").SetDomain("").SinceVersion(version).SetLocation(__FILE__, __LINE__);
    s.SetDoc(perChannel
                 ? "Group normalization: the C channels of X are split into num_groups equal groups; each sample's "
                   "group is normalized to zero mean and unit variance (over its channels and all spatial positions, "
                   "plus epsilon), then Y = scale[c] · normalized + bias[c] per channel. The statistics are computed "
                   "in the precision stash_type names; the scale-and-shift stage is in X's type."
                 : "Group normalization as opset 18 defined it (ONNX deprecates this version in favour of opset "
                   "21's): each sample's group of C / num_groups channels is normalized to zero mean and unit "
                   "variance (plus epsilon) and then scaled and shifted by the group's scale[g] and bias[g].");
    s.Attr("epsilon", "Added to the variance before the square root.", AttributeProto::FLOAT, 1e-5f)
        .Attr("num_groups", "Number of channel groups; must divide C.", AttributeProto::INT, true);
    if (perChannel)
        s.Attr("stash_type", "Element type (TensorProto code) of the normalization statistics; 1 is float.",
               AttributeProto::INT, int64_t{1});
    s.Input(0, "X", "Input (N, C, D1, …, Dn).", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "scale", perChannel ? "Scale per channel, shape (C)." : "Scale per group, shape (num_groups).", "T",
               OpSchema::Single, true, 1, kDiff)
        .Input(2, "bias", perChannel ? "Bias per channel, shape (C)." : "Bias per group, shape (num_groups).", "T",
               OpSchema::Single, true, 1, kDiff)
        .Output(0, "Y", "Normalized output, X's shape.", "T", OpSchema::Single, true, 1, kDiff)
        .TypeConstraint("T", floatTypes(), "Floating-point tensors.")
        .TypeAndShapeInferenceFunction([perChannel](InferenceContext &ctx) { inferGroupNorm(ctx, perChannel); });
    return s;
}

// ---- DeformConv-19

void inferDeformConv(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    const char *op = "DeformConv";
    const int64_t group = onnx::getAttribute(ctx, "group", 1);
    const int64_t offsetGroup = onnx::getAttribute(ctx, "offset_group", 1);
    if (group <= 0 || offsetGroup <= 0)
        fail_shape_inference(op, ": attributes group and offset_group must be positive");
    const TensorShapeProto *x = shapeOf(ctx, 0);
    const TensorShapeProto *w = shapeOf(ctx, 1);
    const TensorShapeProto *offset = shapeOf(ctx, 2);
    const TensorShapeProto *ref = x != nullptr ? x : w != nullptr ? w : offset;
    if (ref == nullptr)
        return;
    const int rank = ref->dim_size();
    if (rank < 3)
        fail_shape_inference(op, ": X, W and offset must have rank 3 or more, got ", rank);
    for (const TensorShapeProto *p : {x, w, offset})
        if (p != nullptr && p->dim_size() != rank)
            fail_shape_inference(op, ": X, W and offset must have the same rank");
    const size_t spatial = static_cast<size_t>(rank - 2);

    std::vector<int64_t> kernel;
    if (onnx::getRepeatedAttribute(ctx, "kernel_shape", kernel)) {
        if (kernel.size() != spatial)
            fail_shape_inference(op, ": attribute kernel_shape has ", kernel.size(), " entries, expected ", spatial);
    } else if (w != nullptr) {
        for (size_t i = 0; i < spatial && kernel.size() == i; ++i)
            if (w->dim(static_cast<int>(i) + 2).has_dim_value())
                kernel.push_back(w->dim(static_cast<int>(i) + 2).dim_value());
        if (kernel.size() != spatial)
            kernel.clear(); // some kernel size is symbolic
    }
    for (int64_t k : kernel)
        if (k <= 0)
            fail_shape_inference(op, ": kernel sizes must be positive");
    const auto strides = positiveInts(ctx, op, "strides", spatial);
    const auto dilations = positiveInts(ctx, op, "dilations", spatial);
    const auto pads = explicitPads(ctx, op, spatial);

    if (x != nullptr && x->dim(1).has_dim_value()) {
        const int64_t c = x->dim(1).dim_value();
        if (c % group != 0 || c % offsetGroup != 0)
            fail_shape_inference(op, ": the input channel count ", c, " must be divisible by group (", group,
                                 ") and offset_group (", offsetGroup, ")");
        if (w != nullptr && w->dim(1).has_dim_value() && w->dim(1).dim_value() * group != c)
            fail_shape_inference(op, ": W has ", w->dim(1).dim_value(), " channels per group, X has ", c,
                                 " channels in ", group, " groups");
    }
    if (w != nullptr && w->dim(0).has_dim_value() && w->dim(0).dim_value() % group != 0)
        fail_shape_inference(op, ": the output channel count ", w->dim(0).dim_value(), " is not divisible by group ",
                             group);
    if (offset != nullptr && offset->dim(1).has_dim_value() && !kernel.empty()) {
        int64_t taps = offsetGroup * static_cast<int64_t>(spatial);
        for (int64_t k : kernel)
            taps *= k;
        if (offset->dim(1).dim_value() != taps)
            fail_shape_inference(op, ": offset has ", offset->dim(1).dim_value(),
                                 " channels, expected offset_group × kernel taps × spatial rank = ", taps);
    }

    TensorShapeProto out;
    Dim *n = out.add_dim();
    Dim *oc = out.add_dim();
    if (x != nullptr)
        mergeDim(*n, x->dim(0), op, "the inputs disagree on the batch size");
    if (offset != nullptr)
        mergeDim(*n, offset->dim(0), op, "the inputs disagree on the batch size");
    if (w != nullptr)
        *oc = w->dim(0);
    for (size_t i = 0; i < spatial; ++i) {
        Dim *d = out.add_dim();
        const int axis = static_cast<int>(i) + 2;
        if (x != nullptr && x->dim(axis).has_dim_value() && !kernel.empty())
            d->set_dim_value(windowCount(op, i, x->dim(axis).dim_value(), (kernel[i] - 1) * dilations[i] + 1,
                                         strides[i], pads[i], pads[i + spatial], false));
        // The offset carries one sampling position per output position, so its spatial dims are Y's.
        if (offset != nullptr)
            mergeDim(*d, offset->dim(axis), op, "the inputs disagree on an output spatial size (X vs. offset)");
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema deformConv19()
{
    OpSchema s;
    s.SetName("DeformConv").SetDomain("").SinceVersion(19).SetLocation(__FILE__, __LINE__);
    s.SetDoc("Deformable convolution (N-D): like Conv, but every kernel tap samples X at its regular position plus a "
             "learned fractional displacement from 'offset' (bilinearly interpolated, zero outside the padded input), "
             "optionally weighted by 'mask'. Spatial output sizes follow Conv: floor((in + pad_begin + pad_end - "
             "((k - 1) * dilation + 1)) / stride) + 1.")
        .Attr("dilations", "Spacing between kernel taps per spatial axis; default 1.", AttributeProto::INTS, false)
        .Attr("group", "Groups the input and output channels are split into; both counts must be divisible by it.",
              AttributeProto::INT, int64_t{1})
        .Attr("kernel_shape", "Kernel size per spatial axis; default: W's spatial dims.", AttributeProto::INTS, false)
        .Attr("offset_group", "Groups of input channels sharing one set of offsets; must divide C.",
              AttributeProto::INT, int64_t{1})
        .Attr("pads", kPadsDoc, AttributeProto::INTS, false)
        .Attr("strides", "Step per spatial axis; default 1.", AttributeProto::INTS, false)
        .Input(0, "X", "Input (N, C, D1, …, Dn).", "T")
        .Input(1, "W", "Weights (oC, C / group, k1, …, kn).", "T")
        .Input(2, "offset", "Tap displacements (N, offset_group · k1 · … · kn · n, O1, …, On), one coordinate per "
                            "spatial axis per tap.",
               "T")
        .Input(3, "B", "Bias per output channel, shape (oC); default zeros.", "T", OpSchema::Optional)
        .Input(4, "mask", "Weight per tap and output position (N, offset_group · k1 · … · kn, O1, …, On); default ones.",
               "T", OpSchema::Optional)
        .Output(0, "Y", "Output (N, oC, O1, …, On).", "T")
        .TypeConstraint("T", ieeeFloatTypes(), "Floating-point tensors.")
        .TypeAndShapeInferenceFunction(inferDeformConv);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> visionOpSchemas()
{
    std::vector<OpSchema> schemas{lpPool18(),
                                  averagePool19(),
                                  resize(18),
                                  resize(19),
                                  groupNormalization(18),
                                  groupNormalization(21),
                                  deformConv19()};
    for (auto &s : visionOpSchemas2())
        schemas.push_back(std::move(s));
    return schemas;
}

} // namespace portolan::opset
