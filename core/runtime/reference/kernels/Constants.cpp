// Kernels that make values from attributes or shapes: Constant, ConstantOfShape, Identity, Dropout
// (inference), Shape, Size, Range, EyeLike.
#include "runtime/TensorProtoIO.h"
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "support/IntegerArithmetic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "ir/Type.h"

namespace portolan::runtime::kernels {

support::Status constant(KernelContext &ctx)
{
    const ir::Attribute *valueAttribute = ctx.attribute("value");
    if (valueAttribute && valueAttribute->externalTensor) {
        auto tensor = tensorFromInitializer(valueAttribute->externalTensor);
        if (!tensor)
            return ctx.error(tensor.error().primary.message);
        ctx.setOutput(0, std::move(*tensor));
    } else if (const onnx::TensorProto *t = ctx.attrTensor("value")) {
        auto tensor = tensorFromProto(*t);
        if (!tensor)
            return ctx.error(tensor.error().primary.message);
        ctx.setOutput(0, std::move(*tensor));
    } else if (ctx.hasAttribute("value_float")) {
        ctx.setOutput(0, Tensor::fromVector<float>(TensorProto::FLOAT, {}, {ctx.attrFloat("value_float", 0)}));
    } else if (ctx.hasAttribute("value_floats")) {
        const auto v = ctx.attrFloats("value_floats");
        ctx.setOutput(0, Tensor::fromVector<float>(TensorProto::FLOAT, {static_cast<std::int64_t>(v.size())}, v));
    } else if (ctx.hasAttribute("value_int")) {
        ctx.setOutput(0, Tensor::fromVector<std::int64_t>(TensorProto::INT64, {}, {ctx.attrInt("value_int", 0)}));
    } else if (ctx.hasAttribute("value_ints")) {
        const auto v = ctx.attrInts("value_ints");
        ctx.setOutput(0, Tensor::fromVector<std::int64_t>(TensorProto::INT64, {static_cast<std::int64_t>(v.size())}, v));
    } else if (ctx.hasAttribute("value_string")) {
        ctx.setOutput(0, Tensor::fromVector<std::string>(TensorProto::STRING, {}, {ctx.attrString("value_string")}));
    } else if (ctx.hasAttribute("value_strings")) {
        const auto v = ctx.attrStrings("value_strings");
        ctx.setOutput(0, Tensor::fromVector<std::string>(TensorProto::STRING, {static_cast<std::int64_t>(v.size())}, v));
    } else {
        return ctx.error("has no value attribute Portolan supports (sparse_value is not supported)");
    }
    return support::Status::ok();
}

// Reads a 1-D int64 shape tensor, refusing negative dims.
static support::Expected<Shape> shapeFromTensor(KernelContext &ctx, const Tensor &t)
{
    if (t.dataType() != TensorProto::INT64 || t.rank() > 1)
        return ctx.error("the shape input must be a 1-D int64 tensor");
    Shape shape(t.data<std::int64_t>(), t.data<std::int64_t>() + t.size());
    for (const auto d : shape)
        if (d < 0)
            return ctx.error("the shape " + shapeString(shape) + " has a negative dim");
    return shape;
}

support::Status constantOfShape(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    auto shape = shapeFromTensor(ctx, ctx.input(0));
    if (!shape)
        return shape.takeError();
    Tensor fill = Tensor::fromVector<float>(TensorProto::FLOAT, {1}, {0.0f});
    if (const onnx::TensorProto *t = ctx.attrTensor("value")) {
        auto v = tensorFromProto(*t);
        if (!v || v->size() != 1)
            return ctx.error("'value' must hold exactly one element");
        fill = std::move(*v);
    }
    auto out = ctx.allocate(fill.dataType(), *shape);
    if (!out)
        return out.takeError();
    const std::size_t element = ir::dataTypeSize(fill.dataType());
    std::byte *dst = out->mutableData<std::byte>();
    for (std::int64_t i = 0; i < out->size(); ++i)
        std::memcpy(dst + static_cast<std::size_t>(i) * element, fill.rawData(), element);
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status identity(KernelContext &ctx)
{
    if (!ctx.inputValue(0))
        return ctx.error("input 0 is missing");
    ctx.setOutputValue(0, *ctx.inputValue(0));
    return support::Status::ok();
}

// Inference passes the input through; training mode drops elements with a seeded generator
// (outputs then depend on the seed, as in every runtime).
support::Status dropout(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    float ratio = ctx.attrFloat("ratio", 0.5f);
    const auto seed = static_cast<std::uint32_t>(ctx.attrInt("seed", 0)); // only training draws from it
    bool training = ctx.opset() < 7 && ctx.attrInt("is_test", 0) == 0;
    if (ctx.opset() >= 12) {
        training = false;
        if (ctx.hasInput(1))
            ratio = static_cast<float>(convertTensor(ctx.input(1), TensorProto::FLOAT).data<float>()[0]);
        if (ctx.hasInput(2))
            training = ctx.input(2).data<std::uint8_t>()[0] != 0;
    } else if (ctx.opset() >= 7) {
        training = false; // opsets 7–11 are inference-only
    }
    auto mask = ctx.allocate(TensorProto::BOOL, x.shape());
    if (!mask)
        return mask.takeError();
    std::uint8_t *m = mask->mutableData<std::uint8_t>();
    if (!training || ratio == 0.0f) {
        std::fill(m, m + x.size(), std::uint8_t(1));
        ctx.setOutput(0, x);
    } else {
        if (!visitFloat(toComputeType(x).dataType(), [] <typename T>() {}))
            return ctx.error("training-mode Dropout needs a float input");
        std::mt19937 rng(seed);
        std::bernoulli_distribution keep(1.0 - ratio);
        Tensor in = toComputeType(x);
        Tensor out = Tensor::zeros(in.dataType(), in.shape());
        const float scale = 1.0f / (1.0f - ratio);
        visitFloat(in.dataType(), [&]<typename T>() {
            for (std::int64_t i = 0; i < in.size(); ++i) {
                m[i] = keep(rng) ? 1 : 0;
                out.mutableData<T>()[i] = m[i] ? in.data<T>()[i] * static_cast<T>(scale) : T(0);
            }
        });
        ctx.setOutput(0, fromComputeType(out, x.dataType()));
    }
    if (ctx.wantsOutput(1))
        ctx.setOutput(1, std::move(*mask));
    return support::Status::ok();
}

support::Status shape(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Shape &s = ctx.input(0).shape();
    const auto rank = static_cast<std::int64_t>(s.size());
    std::int64_t start = ctx.attrInt("start", 0);
    std::int64_t end = ctx.attrInt("end", rank);
    auto clampAxis = [rank](std::int64_t a) { return std::clamp(a < 0 ? a + rank : a, std::int64_t(0), rank); };
    start = clampAxis(start);
    end = clampAxis(end);
    std::vector<std::int64_t> dims;
    for (std::int64_t i = start; i < end; ++i)
        dims.push_back(s[static_cast<std::size_t>(i)]);
    ctx.setOutput(0, Tensor::fromVector(TensorProto::INT64, {static_cast<std::int64_t>(dims.size())}, dims));
    return support::Status::ok();
}

support::Status size(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    ctx.setOutput(0, Tensor::fromVector<std::int64_t>(TensorProto::INT64, {}, {ctx.input(0).size()}));
    return support::Status::ok();
}

support::Status range(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const int type = ctx.input(0).dataType();
    // Each operand is read as one element of start's type: a wider or empty one would be read past its end.
    for (std::size_t k = 0; k < 3; ++k)
        if (ctx.input(k).dataType() != type || ctx.input(k).size() != 1)
            return ctx.error("start, limit and delta must be scalars of one type");
    support::Status status;
    const bool known = visitNumeric(type, [&]<typename T>() {
        const T start = ctx.input(0).data<T>()[0];
        const T limit = ctx.input(1).data<T>()[0];
        const T delta = ctx.input(2).data<T>()[0];
        if (delta == T(0)) {
            status = ctx.error("delta is zero");
            return;
        }
        const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
        // NaN and infinite operands, or a count past int64 (converting it would be undefined): refused;
        // a large finite count is left to the memory cap.
        if (!(count < 0x1p62)) {
            status = ctx.error("the output would have " + (std::isnan(count) ? std::string("NaN") : std::to_string(count)) +
                               " elements");
            return;
        }
        auto out = ctx.allocate(type, {static_cast<std::int64_t>(std::max(0.0, count))});
        if (!out) {
            status = out.takeError();
            return;
        }
        T *o = out->mutableData<T>();
        for (std::int64_t i = 0; i < out->size(); ++i) {
            if constexpr (std::is_integral_v<T>) // the last element may pass the type's range when count rounded up
                o[i] = support::wrappingAdd(start, support::wrappingMul(static_cast<T>(i), delta));
            else
                o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
        }
        ctx.setOutput(0, std::move(*out));
    });
    if (!known)
        return ctx.error("unsupported element type");
    return status;
}

support::Status eyeLike(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &in = ctx.input(0);
    if (in.rank() != 2)
        return ctx.error("input must be 2-D");
    const int type = static_cast<int>(ctx.attrInt("dtype", in.dataType()));
    const std::int64_t k = ctx.attrInt("k", 0);
    Tensor ones = Tensor::zeros(TensorProto::DOUBLE, in.shape());
    for (std::int64_t r = 0; r < in.dim(0); ++r)
        if (r + k >= 0 && r + k < in.dim(1))
            ones.mutableData<double>()[r * in.dim(1) + r + k] = 1.0;
    ctx.setOutput(0, convertTensor(ones, type));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
