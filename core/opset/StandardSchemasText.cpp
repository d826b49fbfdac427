// Schemas of the standard-domain Optional and string ops of opsets 18–27: OptionalGetElement 18,
// OptionalHasElement 18, RegexFullMatch, StringConcat and StringSplit 20.
#include "opset/SchemaInference.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <string>
#include <vector>

namespace portolan::opset {

namespace {

// --- Optional

std::vector<std::string> optionalTensorOrSequenceTypes()
{
    std::vector<std::string> types = OpSchema::all_optional_types();
    for (const auto *list : {&OpSchema::all_tensor_types(), &OpSchema::all_tensor_sequence_types()})
        types.insert(types.end(), list->begin(), list->end());
    return types;
}

void inferOptionalGetElement(InferenceContext &ctx)
{
    const onnx::TypeProto *in = ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr;
    if (in == nullptr)
        return;
    if (in->has_optional_type()) {
        if (!in->optional_type().has_elem_type())
            fail_type_inference("OptionalGetElement: the optional input's element type is not known");
        ctx.getOutputType(0)->CopyFrom(in->optional_type().elem_type());
    } else {
        ctx.getOutputType(0)->CopyFrom(*in); // a tensor or sequence passes through
    }
}

OpSchema optionalGetElement()
{
    std::vector<std::string> valueTypes = OpSchema::all_tensor_types();
    const auto &sequences = OpSchema::all_tensor_sequence_types();
    valueTypes.insert(valueTypes.end(), sequences.begin(), sequences.end());
    OpSchema s;
    s.SetName("OptionalGetElement")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Unwraps an optional: outputs the tensor or sequence it holds. A plain tensor or sequence input "
                "(new in version 18) is passed through. An empty optional is an error (undefined behaviour).")
        .Input(0, "input", "an optional, tensor or sequence", "O")
        .Output(0, "output", "the held (or passed) tensor or sequence", "V")
        .TypeConstraint("O", optionalTensorOrSequenceTypes(), "optional, tensor and sequence types")
        .TypeConstraint("V", valueTypes, "tensor and sequence types")
        .TypeAndShapeInferenceFunction(inferOptionalGetElement);
    return s;
}

OpSchema optionalHasElement()
{
    OpSchema s;
    s.SetName("OptionalHasElement")
        .SetDomain("")
        .SinceVersion(18)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Whether a value is present: true for an optional holding an element or for a tensor or sequence "
                "input, false for an empty optional or a missing input (the input became optional, and may be a "
                "plain tensor or sequence, in version 18).")
        .Input(0, "input", "an optional, tensor or sequence; may be omitted", "O", OpSchema::Optional)
        .Output(0, "output", "a scalar bool", "B")
        .TypeConstraint("O", optionalTensorOrSequenceTypes(), "optional, tensor and sequence types")
        .TypeConstraint("B", {"tensor(bool)"}, "bool")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            onnx::updateOutputElemType(ctx, 0, TensorProto::BOOL);
            onnx::updateOutputShape(ctx, 0, TensorShapeProto()); // a scalar
        });
    return s;
}

// --- String ops

OpSchema regexFullMatch()
{
    OpSchema s;
    s.SetName("RegexFullMatch")
        .SetDomain("")
        .SinceVersion(20)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Elementwise: true where the whole string matches the RE2 regular expression `pattern` (a full "
                "match, not a search), false elsewhere. The output has the input's shape.")
        .Attr("pattern", "the RE2 regular expression", AttributeProto::STRING, false)
        .Input(0, "X", "the strings to test", "T1", OpSchema::Single, true, 1, OpSchema::NonDifferentiable)
        .Output(0, "Y", "true where the string fully matches", "T2", OpSchema::Single, true, 1,
                OpSchema::NonDifferentiable)
        .TypeConstraint("T1", {"tensor(string)"}, "UTF-8 strings")
        .TypeConstraint("T2", {"tensor(bool)"}, "bool")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            onnx::updateOutputElemType(ctx, 0, TensorProto::BOOL);
            if (onnx::hasInputShape(ctx, 0))
                onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        });
    return s;
}

OpSchema stringConcat()
{
    OpSchema s;
    s.SetName("StringConcat")
        .SetDomain("")
        .SinceVersion(20)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Elementwise string concatenation X + Y, with NumPy-style broadcasting of the two shapes.")
        .Input(0, "X", "the leading strings", "T", OpSchema::Single, true, 1, OpSchema::NonDifferentiable)
        .Input(1, "Y", "the trailing strings", "T", OpSchema::Single, true, 1, OpSchema::NonDifferentiable)
        .Output(0, "Z", "the concatenations, of the broadcast shape", "T", OpSchema::Single, true, 1,
                OpSchema::NonDifferentiable)
        .TypeConstraint("T", {"tensor(string)"}, "UTF-8 strings")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            onnx::updateOutputElemType(ctx, 0, TensorProto::STRING);
            if (onnx::hasNInputShapes(ctx, 2))
                onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0), onnx::getInputShape(ctx, 1),
                                                           *onnx::getOutputShape(ctx, 0));
        });
    return s;
}

OpSchema stringSplit()
{
    OpSchema s;
    s.SetName("StringSplit")
        .SetDomain("")
        .SinceVersion(20)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Splits every string at `delimiter` (each occurrence separates, so adjacent delimiters give empty "
                "substrings) or, when the delimiter is unset or empty, at runs of whitespace with leading and "
                "trailing whitespace dropped. At most `maxsplit` splits are made, the rest of the string being the "
                "last substring. Y has X's shape plus a last axis as long as the most substrings any element gave, "
                "padded with empty strings; Z has X's shape and counts each element's substrings.")
        .Attr("delimiter", "the separator; unset or empty splits on whitespace", AttributeProto::STRING, false)
        .Attr("maxsplit", "the most splits per string (unset: no limit)", AttributeProto::INT, false)
        .Input(0, "X", "the strings to split", "T1", OpSchema::Single, true, 1, OpSchema::NonDifferentiable)
        .Output(0, "Y", "the substrings, padded with empty strings: X's shape plus one axis", "T2", OpSchema::Single,
                true, 1, OpSchema::NonDifferentiable)
        .Output(1, "Z", "the number of substrings of each element: X's shape", "T3", OpSchema::Single, true, 1,
                OpSchema::NonDifferentiable)
        .TypeConstraint("T1", {"tensor(string)"}, "UTF-8 strings")
        .TypeConstraint("T2", {"tensor(string)"}, "the substrings")
        .TypeConstraint("T3", {"tensor(int64)"}, "the counts")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            onnx::updateOutputElemType(ctx, 0, TensorProto::STRING);
            onnx::updateOutputElemType(ctx, 1, TensorProto::INT64);
            if (!onnx::hasInputShape(ctx, 0))
                return;
            TensorShapeProto split = onnx::getInputShape(ctx, 0);
            split.add_dim(); // known only at run time
            onnx::updateOutputShape(ctx, 0, split);
            onnx::updateOutputShape(ctx, 1, onnx::getInputShape(ctx, 0));
        });
    return s;
}

} // namespace

std::vector<onnx::OpSchema> textAndOptionalOpSchemas()
{
    return {regexFullMatch(), stringConcat(), stringSplit(), optionalGetElement(), optionalHasElement()};
}

} // namespace portolan::opset
