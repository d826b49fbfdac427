// Helpers the standard-domain schema families share (see SchemaInference.h).
#include "opset/SchemaInference.h"

#include <onnx/defs/shape_inference.h>
#include <onnx/defs/tensor_proto_util.h>

namespace portolan::opset {

// ---- type lists

const std::vector<std::string> &allTensorTypes()
{
    static const std::vector<std::string> types{
        "tensor(uint8)",    "tensor(uint16)", "tensor(uint32)", "tensor(uint64)", "tensor(int8)",      "tensor(int16)",
        "tensor(int32)",    "tensor(int64)",  "tensor(bfloat16)", "tensor(float16)", "tensor(float)",  "tensor(double)",
        "tensor(string)",   "tensor(bool)",   "tensor(complex64)", "tensor(complex128)"};
    return types;
}

const std::vector<std::string> &integerTypes()
{
    static const std::vector<std::string> types{"tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)",
                                                "tensor(int8)",  "tensor(int16)",  "tensor(int32)",  "tensor(int64)"};
    return types;
}

const std::vector<std::string> &ieeeFloatTypes()
{
    static const std::vector<std::string> types{"tensor(float16)", "tensor(float)", "tensor(double)"};
    return types;
}

// ---- inputs

bool inputListed(const InferenceContext &ctx, std::size_t i) { return i < ctx.getNumInputs(); }

bool hasInput(InferenceContext &ctx, std::size_t i)
{
    return inputListed(ctx, i) && (ctx.getInputType(i) != nullptr || ctx.getInputData(i) != nullptr);
}

bool hasTypedInput(InferenceContext &ctx, std::size_t i)
{
    if (!inputListed(ctx, i))
        return false;
    const onnx::TypeProto *type = ctx.getInputType(i);
    return type != nullptr && type->value_case() != onnx::TypeProto::VALUE_NOT_SET;
}

const TensorShapeProto *shapeOf(InferenceContext &ctx, std::size_t i)
{
    if (!onnx::hasInputShape(ctx, i) || !ctx.getInputType(i)->has_tensor_type())
        return nullptr;
    return &onnx::getInputShape(ctx, i);
}

std::optional<std::vector<std::int64_t>> constantInts(InferenceContext &ctx, std::size_t i, const char *op,
                                                      const char *input)
{
    const TensorProto *t = inputListed(ctx, i) ? ctx.getInputData(i) : nullptr;
    if (t == nullptr)
        return std::nullopt;
    if (t->data_type() == TensorProto::INT64)
        return onnx::ParseData<std::int64_t>(t);
    if (t->data_type() == TensorProto::INT32) {
        const auto narrow = onnx::ParseData<std::int32_t>(t);
        return std::vector<std::int64_t>(narrow.begin(), narrow.end());
    }
    if (op != nullptr)
        fail_shape_inference(op, ": input '", input, "' must be int32 or int64");
    return std::nullopt;
}

std::optional<TensorShapeProto> knownIntValues(InferenceContext &ctx, std::size_t i)
{
    if (!inputListed(ctx, i))
        return std::nullopt;
    if (const auto values = constantInts(ctx, i)) {
        TensorShapeProto out;
        for (std::int64_t v : *values)
            out.add_dim()->set_dim_value(v);
        return out;
    }
    if (const TensorShapeProto *symbolic = ctx.getSymbolicInput(i))
        return *symbolic;
    return std::nullopt;
}

// ---- attributes

std::string stringAttrOneOf(InferenceContext &ctx, const char *op, const char *name, const char *fallback,
                            std::initializer_list<const char *> allowed)
{
    std::string value = onnx::getAttribute(ctx, name, std::string(fallback));
    for (const char *a : allowed)
        if (value == a)
            return value;
    fail_shape_inference(op, ": attribute ", name, " has the unknown value '", value, "'");
}

std::int64_t headsAttr(InferenceContext &ctx, const char *name, const char *op)
{
    const AttributeProto *a = ctx.getAttribute(name);
    if (a == nullptr)
        return 0;
    if (a->i() <= 0)
        fail_shape_inference(op, ": attribute ", name, " must be positive, got ", a->i());
    return a->i();
}

void checkFloatPrecision(InferenceContext &ctx, const char *attr, const char *op)
{
    if (const AttributeProto *a = ctx.getAttribute(attr)) {
        const std::int64_t t = a->i();
        if (t != TensorProto::FLOAT && t != TensorProto::FLOAT16 && t != TensorProto::DOUBLE &&
            t != TensorProto::BFLOAT16)
            fail_shape_inference(op, ": attribute ", attr, " must name float, float16, double or bfloat16, got ", t);
    }
}

// ---- outputs

void propagateTypeAndShape(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (onnx::hasInputShape(ctx, 0))
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

void elemTypeFrom(InferenceContext &ctx, std::initializer_list<std::size_t> from, std::size_t out)
{
    if (out >= ctx.getNumOutputs())
        return;
    for (std::size_t in : from)
        if (hasTypedInput(ctx, in) && ctx.getInputType(in)->has_tensor_type() &&
            ctx.getInputType(in)->tensor_type().elem_type() != TensorProto::UNDEFINED) {
            onnx::propagateElemTypeFromInputToOutput(ctx, in, out);
            return;
        }
}

void setShape(InferenceContext &ctx, std::size_t out, std::initializer_list<Dim> dims)
{
    if (out < ctx.getNumOutputs())
        onnx::updateOutputShape(ctx, out, dims);
}

// ---- axes and dims

void normalizeAxes(std::vector<std::int64_t> &axes, int rank, const char *op, const char *what, bool allowRepeats)
{
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (auto &axis : axes) {
        if (axis < -rank || axis >= rank)
            fail_shape_inference(op, ": ", what, " value ", axis, " is outside [-", rank, ", ", rank - 1, "]");
        if (axis < 0)
            axis += rank;
        if (seen[static_cast<std::size_t>(axis)] && !allowRepeats)
            fail_shape_inference(op, ": ", what, " names axis ", axis, " twice");
        seen[static_cast<std::size_t>(axis)] = true;
    }
}

Dim valueDim(std::int64_t v)
{
    Dim d;
    d.set_dim_value(v);
    return d;
}

Dim divided(const Dim &d, std::int64_t n, const char *op, const char *what)
{
    if (n == 1)
        return d;
    if (!d.has_dim_value())
        return Dim{};
    if (d.dim_value() % n != 0)
        fail_shape_inference(op, ": ", what, " (", d.dim_value(), ") is not a multiple of the head count ", n);
    return valueDim(d.dim_value() / n);
}

Dim times(const Dim &d, std::int64_t n) { return n == 1 ? d : d.has_dim_value() ? valueDim(d.dim_value() * n) : Dim{}; }

void mergeDim(Dim &into, const Dim &other, const char *op, const char *conflict)
{
    if (into.has_dim_value() && other.has_dim_value()) {
        if (into.dim_value() != other.dim_value())
            fail_shape_inference(op, ": ", conflict, " (", into.dim_value(), " vs ", other.dim_value(), ")");
        return;
    }
    if (!into.has_dim_value() && (other.has_dim_value() || (!into.has_dim_param() && other.has_dim_param())))
        into = other;
}

void expectDim(const Dim &have, const Dim &want, bool orOne, const char *op, const char *what)
{
    if (!have.has_dim_value() || !want.has_dim_value() || have.dim_value() == want.dim_value())
        return;
    if (orOne && have.dim_value() == 1)
        return;
    fail_shape_inference(op, ": ", what, " is ", have.dim_value(), ", expected ", want.dim_value());
}

void expectRank(const TensorShapeProto *shape, int rank, const char *op, const char *input)
{
    if (shape != nullptr && shape->dim_size() != rank)
        fail_shape_inference(op, ": input ", input, " has rank ", shape->dim_size(), ", expected ", rank);
}

} // namespace portolan::opset
