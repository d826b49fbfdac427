// Standard-domain schemas of opsets 18–27 for the reductions (axes as an input), Split, Pad,
// ScatterElements and ScatterND; CenterCropPad, Col2Im, the bitwise ops and CumProd are in
// StandardSchemasTensor2.cpp.
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

// The numeric types of the reductions; ReduceMax/ReduceMin add 8-bit integers (and bool at 20).
std::vector<std::string> reductionTypes(bool eightBit, bool boolean)
{
    std::vector<std::string> types{"tensor(uint32)", "tensor(uint64)", "tensor(int32)",  "tensor(int64)",
                                   "tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"};
    if (eightBit) {
        types.emplace_back("tensor(uint8)");
        types.emplace_back("tensor(int8)");
    }
    if (boolean)
        types.emplace_back("tensor(bool)");
    return types;
}

// An output shape of `rank` dims, all unknown: what is left when only the rank can be told.
void setUnknownDims(InferenceContext &ctx, size_t output, int rank)
{
    TensorShapeProto *shape = ctx.getOutputType(output)->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int i = 0; i < rank; ++i)
        shape->add_dim();
}

// ---- Reductions ------------------------------------------------------------------------------------

void inferReduction(InferenceContext &ctx, const char *op)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (!onnx::hasInputShape(ctx, 0))
        return;
    const TensorShapeProto &in = onnx::getInputShape(ctx, 0);
    const int rank = in.dim_size();
    const bool keepDims = onnx::getAttribute(ctx, "keepdims", 1) != 0;
    const bool noopWhenEmpty = onnx::getAttribute(ctx, "noop_with_empty_axes", 0) != 0;

    std::vector<std::int64_t> axes;
    if (inputListed(ctx, 1)) {
        auto values = constantInts(ctx, 1, op, "axes");
        if (values) {
            axes = std::move(*values);
        } else {
            // A run-time axes tensor of known length 0 is still "empty axes"; otherwise only keepdims=1
            // tells the rank (each dim is kept or becomes 1).
            const bool knownEmpty = onnx::hasInputShape(ctx, 1) && onnx::getInputShape(ctx, 1).dim_size() == 1 &&
                                    onnx::getInputShape(ctx, 1).dim(0).has_dim_value() &&
                                    onnx::getInputShape(ctx, 1).dim(0).dim_value() == 0;
            if (!knownEmpty) {
                if (keepDims)
                    setUnknownDims(ctx, 0, rank);
                return;
            }
        }
    }
    if (axes.empty() && noopWhenEmpty) {
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        return;
    }
    normalizeAxes(axes, rank, op, "axes", true);
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
    for (auto axis : axes)
        reduced[static_cast<size_t>(axis)] = true;

    TensorShapeProto out;
    for (int i = 0; i < rank; ++i) {
        if (!reduced[static_cast<size_t>(i)])
            *out.add_dim() = in.dim(i);
        else if (keepDims)
            out.add_dim()->set_dim_value(1);
    }
    onnx::updateOutputShape(ctx, 0, out);
}

struct Reduction {
    const char *op;
    int version;
    const char *computes;   // what is folded over the reduced axes
    const char *emptyValue; // the result over an empty set of values
    bool eightBit;
    bool boolean;
};

OpSchema reductionSchema(const Reduction &r)
{
    std::string doc = std::string("Folds the elements of `data` along the chosen axes into their ") + r.computes +
                      ". With keepdims=1 each reduced axis stays as a dim of size 1; with keepdims=0 it is dropped. "
                      "The axes come from the optional `axes` input; when it is missing or empty, every axis is "
                      "reduced, unless noop_with_empty_axes=1, which reduces none (the element-wise part of a composite "
                      "reduction, such as the square of ReduceSumSquare, still applies). Scalars are accepted. Reducing "
                      "an empty set yields " +
                      r.emptyValue + ".";
    if (r.boolean)
        doc += " For bool data, false orders before true.";
    const char *op = r.op;
    OpSchema s;
    s.SetName(r.op)
        .SetDomain("")
        .SinceVersion(r.version)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Input(0, "data", "the tensor to reduce", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "axes", "int64 list of axes to reduce, each in [-r, r-1] for r = rank(data); missing or empty means "
                          "all axes, or none with noop_with_empty_axes=1",
               "tensor(int64)", OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "reduced", "the reduced tensor", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("keepdims", "1: keep each reduced axis as size 1; 0: drop it", AttributeProto::INT, static_cast<std::int64_t>(1))
        .Attr("noop_with_empty_axes", "what missing or empty axes mean: 0 reduces every axis, 1 reduces none",
              AttributeProto::INT, static_cast<std::int64_t>(0))
        .TypeConstraint("T", reductionTypes(r.eightBit, r.boolean),
                        r.boolean ? "numeric or bool tensors" : "numeric tensors")
        .TypeAndShapeInferenceFunction([op](InferenceContext &ctx) { inferReduction(ctx, op); });
    return s;
}

// ---- Split -----------------------------------------------------------------------------------------

void inferSplit(InferenceContext &ctx)
{
    const size_t outputs = ctx.getNumOutputs();
    for (size_t i = 0; i < outputs; ++i)
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, i);
    if (!onnx::hasInputShape(ctx, 0))
        return;
    const TensorShapeProto &in = onnx::getInputShape(ctx, 0);
    const int rank = in.dim_size();
    std::int64_t axis = onnx::getAttribute(ctx, "axis", 0);
    if (rank == 0)
        fail_shape_inference("Split: the input must not be a scalar");
    if (axis < -rank || axis >= rank)
        fail_shape_inference("Split: attribute 'axis' (", axis, ") is outside [-", rank, ", ", rank - 1, "]");
    if (axis < 0)
        axis += rank;
    const auto &dim = in.dim(static_cast<int>(axis));
    const std::optional<std::int64_t> known =
        dim.has_dim_value() ? std::optional<std::int64_t>(dim.dim_value()) : std::nullopt;

    const AttributeProto *numOutputsAttr = ctx.getAttribute("num_outputs");
    // With num_outputs set, a null-typed `split` can only be an input named "".
    const bool splitGiven = hasInput(ctx, 1) || (inputListed(ctx, 1) && !numOutputsAttr);
    if (splitGiven && numOutputsAttr)
        fail_shape_inference("Split: the 'split' input and attribute 'num_outputs' must not both be given");

    // Sizes of the parts along `axis`, empty when they cannot be told.
    std::vector<std::int64_t> sizes;
    if (splitGiven) {
        if (auto values = constantInts(ctx, 1, "Split", "split")) {
            sizes = std::move(*values);
            if (sizes.size() != outputs)
                fail_shape_inference("Split: 'split' has ", sizes.size(), " values for ", outputs, " outputs");
            std::int64_t total = 0;
            for (auto v : sizes) {
                if (v < 0)
                    fail_shape_inference("Split: 'split' values must be >= 0, got ", v);
                total += v;
            }
            if (known && total != *known)
                fail_shape_inference("Split: 'split' sums to ", total, " but axis ", axis, " has ", *known);
        }
    } else {
        // num_outputs, or else (an opset-13-style node) as many equal parts as there are outputs.
        const std::int64_t parts = numOutputsAttr ? numOutputsAttr->i() : static_cast<std::int64_t>(outputs);
        if (parts < 1)
            fail_shape_inference("Split: attribute 'num_outputs' must be >= 1, got ", parts);
        if (static_cast<size_t>(parts) != outputs)
            fail_shape_inference("Split: attribute 'num_outputs' is ", parts, " but the node has ", outputs, " outputs");
        if (known) {
            if (!numOutputsAttr && *known % parts != 0)
                fail_shape_inference("Split: without 'split' or 'num_outputs', axis size ", *known,
                                     " must divide into ", parts, " equal parts");
            // Parts of ceil(size / parts); the last takes what is left and may be smaller.
            const std::int64_t chunk = (*known + parts - 1) / parts;
            const std::int64_t last = *known - chunk * (parts - 1);
            if (last < 0)
                fail_shape_inference("Split: axis size ", *known, " is too small for ", parts, " parts of ", chunk,
                                     " (attribute 'num_outputs'); the last would be negative");
            sizes.assign(static_cast<size_t>(parts - 1), chunk);
            sizes.push_back(last);
        }
    }

    for (size_t i = 0; i < outputs; ++i) {
        TensorShapeProto out = in;
        auto *d = out.mutable_dim(static_cast<int>(axis));
        if (!sizes.empty())
            d->set_dim_value(sizes[i]);
        else if (outputs != 1) // a single part is the whole axis, symbolic or not
            d->Clear();
        onnx::updateOutputShape(ctx, i, out);
    }
}

OpSchema split18()
{
    OpSchema s;
    s.SetName("Split")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Cuts `input` along `axis` into consecutive parts, one per output. The part sizes come either from "
                "the `split` input or from the num_outputs attribute (never both). With num_outputs = n, each part "
                "holds ceil(size / n) slices and the last part takes the remainder, so it may be smaller.")
        .Input(0, "input", "the tensor to cut", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "split", "size of each part (each >= 0, summing to the size of `axis`)", "tensor(int64)",
               OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "outputs", "the parts, in order along `axis`", "T", OpSchema::Variadic, true, 1, kDiff)
        .Attr("axis", "the axis to cut; negative counts from the back", AttributeProto::INT, static_cast<std::int64_t>(0))
        .Attr("num_outputs", "number of parts of equal size (the last may be smaller); excludes the `split` input",
              AttributeProto::INT, false)
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeAndShapeInferenceFunction(inferSplit);
    return s;
}

// ---- Pad -------------------------------------------------------------------------------------------

void inferPad(InferenceContext &ctx, bool wrapMode)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    const std::string mode = onnx::getAttribute(ctx, "mode", std::string("constant"));
    if (mode != "constant" && mode != "reflect" && mode != "edge" && !(wrapMode && mode == "wrap"))
        fail_shape_inference("Pad: attribute 'mode' is '", mode, "'; expected constant, reflect, edge",
                             wrapMode ? " or wrap" : "");
    if (!onnx::hasInputShape(ctx, 0))
        return;
    const TensorShapeProto &in = onnx::getInputShape(ctx, 0);
    const int rank = in.dim_size();

    std::vector<std::int64_t> axes;
    if (inputListed(ctx, 3)) {
        auto values = constantInts(ctx, 3, "Pad", "axes");
        if (!values) { // which dims change is unknown
            setUnknownDims(ctx, 0, rank);
            return;
        }
        axes = std::move(*values);
        normalizeAxes(axes, rank, "Pad", "axes", false);
    } else {
        for (int i = 0; i < rank; ++i)
            axes.push_back(i);
    }

    TensorShapeProto out = in; // dims outside `axes` pass through
    const auto pads = constantInts(ctx, 1, "Pad", "pads");
    if (pads && pads->size() != 2 * axes.size())
        fail_shape_inference("Pad: 'pads' has ", pads->size(), " values; expected 2 * ", axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
        auto *d = out.mutable_dim(static_cast<int>(axes[i]));
        if (!pads) {
            d->Clear();
            continue;
        }
        const std::int64_t total = (*pads)[i] + (*pads)[i + axes.size()];
        if (d->has_dim_value()) {
            const std::int64_t size = d->dim_value() + total;
            if (size < 0)
                fail_shape_inference("Pad: 'pads' remove more than axis ", axes[i], " holds (", d->dim_value(), ")");
            d->set_dim_value(size);
        } else if (total != 0) {
            d->Clear();
        }
    }
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema padSchema(int version)
{
    const bool wrap = version >= 19;
    std::string doc = "Grows (or, with negative amounts, trims) `data` at the start and end of the chosen axes. "
                      "`pads` lists the start amounts of every axis in `axes` and then their end amounts. The new "
                      "elements depend on `mode`: constant writes `constant_value` (0, \"\" or false when absent), "
                      "reflect mirrors the data about its first and last element, edge repeats the border element";
    doc += wrap ? ", and wrap continues the data cyclically from the opposite side." : ".";
    OpSchema s;
    s.SetName("Pad")
        .SetDomain("")
        .SinceVersion(version)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Input(0, "data", "the tensor to pad", "T", OpSchema::Single, true, 1, kDiff)
        .Input(1, "pads", "1-D int64 [2 * number of axes]: all start amounts, then all end amounts; negative "
                          "amounts remove elements",
               "tensor(int64)", OpSchema::Single, true, 1, kNonDiff)
        .Input(2, "constant_value", "scalar fill value for constant mode", "T", OpSchema::Optional, true, 1, kNonDiff)
        .Input(3, "axes", "the axes `pads` refers to (negative counts from the back); all axes when absent", "Tind",
               OpSchema::Optional, true, 1, kNonDiff)
        .Output(0, "output", "the padded tensor", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("mode", wrap ? "constant (default), reflect, edge or wrap" : "constant (default), reflect or edge",
              AttributeProto::STRING, std::string("constant"))
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "axes as int32 or int64")
        .TypeAndShapeInferenceFunction([wrap](InferenceContext &ctx) { inferPad(ctx, wrap); });
    return s;
}

// ---- ScatterElements, ScatterND ----------------------------------------------------------------------

void checkReduction(InferenceContext &ctx, const char *op)
{
    const std::string reduction = onnx::getAttribute(ctx, "reduction", std::string("none"));
    if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
        fail_shape_inference(op, ": attribute 'reduction' is '", reduction, "'; expected none, add, mul, max or min");
}

void inferScatterElements(InferenceContext &ctx)
{
    checkReduction(ctx, "ScatterElements");
    propagateTypeAndShape(ctx);
    if (!onnx::hasInputShape(ctx, 0))
        return;
    const int rank = onnx::getInputShape(ctx, 0).dim_size();
    if (rank < 1)
        fail_shape_inference("ScatterElements: 'data' must have rank >= 1");
    const std::int64_t axis = onnx::getAttribute(ctx, "axis", 0);
    if (axis < -rank || axis >= rank)
        fail_shape_inference("ScatterElements: attribute 'axis' (", axis, ") is outside [-", rank, ", ", rank - 1, "]");
    for (size_t i : {size_t{1}, size_t{2}})
        if (onnx::hasInputShape(ctx, i) && onnx::getInputShape(ctx, i).dim_size() != rank)
            fail_shape_inference("ScatterElements: '", i == 1 ? "indices" : "updates", "' must have the rank of 'data' (",
                                 rank, ")");
}

void inferScatterND(InferenceContext &ctx)
{
    checkReduction(ctx, "ScatterND");
    propagateTypeAndShape(ctx);
    if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1))
        return;
    const int r = onnx::getInputShape(ctx, 0).dim_size();
    const auto &indices = onnx::getInputShape(ctx, 1);
    const int q = indices.dim_size();
    if (r < 1 || q < 1)
        fail_shape_inference("ScatterND: 'data' and 'indices' must have rank >= 1");
    const auto &last = indices.dim(q - 1);
    if (!last.has_dim_value())
        return;
    const std::int64_t k = last.dim_value();
    if (k < 1 || k > r)
        fail_shape_inference("ScatterND: the last dim of 'indices' (", k, ") must be in [1, rank(data) = ", r, "]");
    if (onnx::hasInputShape(ctx, 2) && onnx::getInputShape(ctx, 2).dim_size() != q + r - k - 1)
        fail_shape_inference("ScatterND: 'updates' must have rank ", q + r - k - 1, " (q + r - k - 1)");
}

// ScatterElements-18 or ScatterND-18 without what sets them apart: `indices`, `updates` and their own attributes.
OpSchema scatterSchema(const char *op, const char *doc, void (*infer)(InferenceContext &))
{
    OpSchema s;
    s.SetName(op)
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Input(0, "data", "tensor of rank r >= 1", "T", OpSchema::Single, true, 1, kDiff)
        .Output(0, "output", "`data` with the updates applied", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("reduction", "how an update meets the existing value: none (overwrite), add, mul, max or min",
              AttributeProto::STRING, std::string("none"))
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeAndShapeInferenceFunction(infer);
    return s;
}

OpSchema scatterElements18()
{
    OpSchema s = scatterSchema(
        "ScatterElements",
        "Copies `data` and writes each element of `updates` into it: along `axis` the target position is the matching "
        "element of `indices`, along every other axis it is the element's own position. `indices` and `updates` have "
        "one shape and the rank of `data`. With reduction none the indices must not repeat; add, mul, max and min "
        "combine the written value with the value already there. The inverse of GatherElements.",
        inferScatterElements);
    s.Input(1, "indices", "int32/int64 positions along `axis`, each in [-s, s-1] for axis size s", "Tind",
            OpSchema::Single, true, 1, kNonDiff)
        .Input(2, "updates", "the values to write, of the shape of `indices`", "T", OpSchema::Single, true, 1, kDiff)
        .Attr("axis", "the axis `indices` addresses; negative counts from the back", AttributeProto::INT,
              static_cast<std::int64_t>(0))
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "indices as int32 or int64");
    return s;
}

OpSchema scatterND18()
{
    OpSchema s = scatterSchema(
        "ScatterND",
        "Copies `data` (rank r) and writes slices of `updates` into it. `indices` (rank q) is read as a "
        "(q-1)-dimensional grid of k-tuples, k = its last dim <= r; each tuple addresses an element (k = r) or a slice "
        "of the trailing r-k dims of `data`, and `updates` has the shape indices.shape[:-1] + data.shape[k:]. "
        "Negative index values count from the end. With reduction none the tuples must not repeat; add, mul, max and "
        "min combine the written value with the value already there. The inverse of GatherND.",
        inferScatterND);
    s.Input(1, "indices", "int64 tensor of rank q >= 1 whose last dim k is at most r", "tensor(int64)",
            OpSchema::Single, true, 1, kNonDiff)
        .Input(2, "updates", "the values to write, of rank q + r - k - 1", "T", OpSchema::Single, true, 1, kDiff);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> tensorOpSchemas()
{
    // Empty-set results of the reductions, per the spec.
    const char *kZero = "0";
    const char *kMinusInf = "minus infinity (or, for types without it, an undefined value)";
    const char *kLowest = "minus infinity, or the type's lowest value where it has no infinity";
    const char *kHighest = "plus infinity, or the type's highest value where it has no infinity";
    const Reduction reductions[] = {
        {"ReduceL1", 18, "sum of absolute values (L1 norm)", kZero, false, false},
        {"ReduceL2", 18, "L2 norm (square root of the sum of squares)", kZero, false, false},
        {"ReduceLogSum", 18, "natural log of the sum", kMinusInf, false, false},
        {"ReduceLogSumExp", 18, "natural log of the sum of exponentials", kMinusInf, false, false},
        {"ReduceMax", 18, "maximum", kLowest, true, false},
        {"ReduceMean", 18, "mean", "an undefined value", false, false},
        {"ReduceMin", 18, "minimum", kHighest, true, false},
        {"ReduceProd", 18, "product", "1", false, false},
        {"ReduceSumSquare", 18, "sum of squares", kZero, false, false},
        {"ReduceMax", 20, "maximum", kLowest, true, true},
        {"ReduceMin", 20, "minimum", kHighest, true, true},
    };
    std::vector<OpSchema> schemas;
    for (const auto &r : reductions)
        schemas.push_back(reductionSchema(r));
    schemas.push_back(split18());
    schemas.push_back(padSchema(18));
    schemas.push_back(padSchema(19));
    schemas.push_back(scatterElements18());
    schemas.push_back(scatterND18());
    for (auto &s : tensorOpSchemas2())
        schemas.push_back(std::move(s));
    return schemas;
}

} // namespace portolan::opset
