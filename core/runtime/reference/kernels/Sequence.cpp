// Sequence and optional kernels (Sequence*, SplitToSequence, ConcatFromSequence, SequenceMap, Optional*),
// and the TensorOps.h helpers they share with the control-flow, recurrent and signal kernels.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <cstring>

namespace portolan::runtime::kernels {

// --- shared helpers (TensorOps.h)

support::Expected<std::int64_t> scalarInteger(KernelContext &ctx, const Tensor &t, const char *what)
{
    std::int64_t value = 0;
    const bool integer = visitInteger(t.dataType(), [&]<typename T>() {
        if (t.size() == 1)
            value = static_cast<std::int64_t>(t.data<T>()[0]);
    });
    if (!integer || t.size() != 1)
        return ctx.error(std::string(what) + " must be a single integer, got " + ir::dataTypeName(t.dataType()) +
                         shapeString(t.shape()));
    return value;
}

support::Expected<double> scalarNumber(KernelContext &ctx, const Tensor &t, const char *what)
{
    const Tensor c = toComputeType(t);
    double value = 0;
    const bool numeric = visitNumeric(c.dataType(), [&]<typename T>() {
        if (c.size() == 1)
            value = static_cast<double>(c.data<T>()[0]);
    });
    if (!numeric || c.size() != 1)
        return ctx.error(std::string(what) + " must be a single number, got " + ir::dataTypeName(t.dataType()) +
                         shapeString(t.shape()));
    return value;
}

namespace {

// Copies runs of elements between two tensors of one element type (bytes, or strings for STRING).
class ElementCopier {
public:
    ElementCopier(const Tensor &src, Tensor &dst)
        : m_strings(src.dataType() == TensorProto::STRING), m_size(ir::dataTypeSize(src.dataType()))
    {
        if (m_strings) {
            m_srcStrings = &src.strings();
            m_dstStrings = &dst.mutableStrings();
        } else {
            m_src = src.rawData();
            m_dst = dst.mutableData<std::byte>();
        }
    }
    void operator()(std::int64_t from, std::int64_t to, std::int64_t count) const
    {
        if (count <= 0)
            return;
        if (m_strings)
            std::copy_n(m_srcStrings->begin() + from, count, m_dstStrings->begin() + to);
        else
            std::memcpy(m_dst + to * m_size, m_src + from * m_size, static_cast<std::size_t>(count) * m_size);
    }

private:
    bool m_strings;
    std::size_t m_size;
    const std::byte *m_src = nullptr;
    std::byte *m_dst = nullptr;
    const std::vector<std::string> *m_srcStrings = nullptr;
    std::vector<std::string> *m_dstStrings = nullptr;
};

std::int64_t product(const Shape &shape, std::size_t from, std::size_t to)
{
    std::int64_t p = 1;
    for (std::size_t i = from; i < to; ++i)
        p *= shape[i];
    return p;
}

} // namespace

support::Expected<Tensor> sliceAxis(KernelContext &ctx, const Tensor &t, std::size_t axis, std::int64_t start,
                                    std::int64_t count, bool keepAxis)
{
    if (axis >= t.rank() || start < 0 || count < 0 || start + count > t.dim(axis) || (!keepAxis && count != 1))
        return ctx.error("cannot take elements [" + std::to_string(start) + ", " + std::to_string(start + count) +
                         ") of axis " + std::to_string(axis) + " of a " + shapeString(t.shape()) + " tensor");
    Shape shape = t.shape();
    if (keepAxis)
        shape[axis] = count;
    else
        shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
    auto out = ctx.allocate(t.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t outer = product(t.shape(), 0, axis);
    const std::int64_t inner = product(t.shape(), axis + 1, t.rank());
    const ElementCopier copy(t, *out);
    for (std::int64_t o = 0; o < outer; ++o)
        copy((o * t.dim(axis) + start) * inner, o * count * inner, count * inner);
    return out;
}

support::Expected<Tensor> joinAxis(KernelContext &ctx, const std::vector<Tensor> &pieces, std::size_t axis, bool newAxis)
{
    if (pieces.empty())
        return ctx.error("has no tensors to join");
    const Tensor &first = pieces.front();
    if (axis > first.rank() || (!newAxis && axis == first.rank()))
        return ctx.error("axis " + std::to_string(axis) + " is out of range for " + shapeString(first.shape()) +
                         " tensors");
    Shape shape = first.shape();
    if (newAxis)
        shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 0);
    else
        shape[axis] = 0;
    for (const Tensor &p : pieces) {
        bool fits = p.dataType() == first.dataType() && p.rank() == first.rank();
        for (std::size_t d = 0; fits && d < p.rank(); ++d)
            fits = p.dim(d) == first.dim(d) || (!newAxis && d == axis);
        if (!fits)
            return ctx.error("cannot join a " + ir::dataTypeName(p.dataType()) + shapeString(p.shape()) + " with a " +
                             ir::dataTypeName(first.dataType()) + shapeString(first.shape()) +
                             (newAxis ? " (all must have the same shape)"
                                      : " along axis " + std::to_string(axis) + " (other dims must match)"));
        shape[axis] += newAxis ? 1 : p.dim(axis);
    }
    auto out = ctx.allocate(first.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t outer = product(first.shape(), 0, axis);
    const std::int64_t inner = product(first.shape(), newAxis ? axis : axis + 1, first.rank());
    std::int64_t written = 0;
    for (std::int64_t o = 0; o < outer; ++o)
        for (const Tensor &p : pieces) {
            const std::int64_t chunk = (newAxis ? 1 : p.dim(axis)) * inner;
            ElementCopier(p, *out)(o * chunk, written, chunk);
            written += chunk;
        }
    return out;
}

support::Expected<Tensor> toDouble(KernelContext &ctx, const Tensor &t)
{
    if (t.dataType() == TensorProto::DOUBLE)
        return t;
    const Tensor src = toComputeType(t);
    auto out = ctx.allocate(TensorProto::DOUBLE, t.shape());
    if (!out)
        return out.takeError();
    double *dst = out->mutableData<double>();
    const bool numeric = visitNumeric(src.dataType(), [&]<typename T>() {
        const T *s = src.data<T>();
        for (std::int64_t i = 0; i < src.size(); ++i)
            dst[i] = static_cast<double>(s[i]);
    });
    if (!numeric)
        return ctx.error("needs a numeric tensor, got " + ir::dataTypeName(t.dataType()));
    return out;
}

support::Expected<Tensor> fromDouble(KernelContext &ctx, const Tensor &t, int dataType)
{
    if (dataType == TensorProto::DOUBLE)
        return t;
    const int stored = isHalfType(dataType) ? static_cast<int>(TensorProto::FLOAT) : dataType;
    auto out = ctx.allocate(stored, t.shape());
    if (!out)
        return out.takeError();
    const double *src = t.data<double>();
    bool known = true;
    if (stored == TensorProto::BOOL) {
        std::uint8_t *dst = out->mutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < t.size(); ++i)
            dst[i] = src[i] != 0.0;
    } else {
        known = visitNumeric(stored, [&]<typename T>() {
            T *dst = out->mutableData<T>();
            for (std::int64_t i = 0; i < t.size(); ++i)
                dst[i] = static_cast<T>(src[i]);
        });
    }
    if (!known)
        return ctx.error("cannot produce " + ir::dataTypeName(dataType) + " values");
    return fromComputeType(*out, dataType);
}

// --- sequence kernels

namespace {

support::Expected<const RuntimeValue *> sequenceInput(KernelContext &ctx, std::size_t i)
{
    const RuntimeValue *v = ctx.inputValue(i);
    if (!v || v->kind != RuntimeValue::Kind::Sequence)
        return ctx.error("input " + std::to_string(i) + " must be a sequence" + (v ? ", got " + v->describe() : ""));
    return v;
}

// A position in [-n, n - 1] (or [-n, n] when `end` may be named) as an index from the front.
support::Expected<std::int64_t> sequencePosition(KernelContext &ctx, std::size_t input, std::int64_t n, bool allowEnd,
                                                 std::int64_t fallback)
{
    if (!ctx.hasInput(input))
        return fallback;
    auto p = scalarInteger(ctx, ctx.input(input), "position");
    if (!p)
        return p.takeError();
    const std::int64_t last = allowEnd ? n : n - 1;
    if (*p < -n || *p > last)
        return ctx.error("position " + std::to_string(*p) + " is out of range for a sequence of " + std::to_string(n) +
                         " (accepted: [" + std::to_string(-n) + ", " + std::to_string(last) + "])");
    return *p < 0 ? *p + n : *p;
}

support::Expected<std::size_t> normalizeAxis(KernelContext &ctx, std::int64_t axis, std::size_t rank)
{
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r)
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

int sequenceElementType(const RuntimeValue &seq)
{
    return seq.sequence.empty() ? seq.elementType : seq.sequence.front().dataType();
}

} // namespace

support::Status sequenceEmpty(KernelContext &ctx)
{
    ctx.setOutputValue(0, RuntimeValue::ofSequence({}, static_cast<int>(ctx.attrInt("dtype", TensorProto::FLOAT))));
    return support::Status::ok();
}

support::Status sequenceConstruct(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(ctx.inputCount()); !st)
        return st;
    if (ctx.inputCount() == 0)
        return ctx.error("needs at least one input");
    std::vector<Tensor> items;
    for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
        if (ctx.input(i).dataType() != ctx.input(0).dataType())
            return ctx.error("all inputs must have one element type; input " + std::to_string(i) + " is " +
                             ir::dataTypeName(ctx.input(i).dataType()));
        items.push_back(ctx.input(i));
    }
    ctx.setOutputValue(0, RuntimeValue::ofSequence(std::move(items), ctx.input(0).dataType()));
    return support::Status::ok();
}

support::Status sequenceInsert(KernelContext &ctx)
{
    auto seq = sequenceInput(ctx, 0);
    if (!seq)
        return seq.takeError();
    if (!ctx.hasInput(1))
        return ctx.error("input 1 (the tensor to insert) is missing");
    const Tensor &t = ctx.input(1);
    const int type = sequenceElementType(**seq);
    if (type && type != t.dataType())
        return ctx.error("cannot insert a " + ir::dataTypeName(t.dataType()) + " tensor into a sequence of " +
                         ir::dataTypeName(type));
    const auto n = static_cast<std::int64_t>((*seq)->sequence.size());
    auto at = sequencePosition(ctx, 2, n, true, n);
    if (!at)
        return at.takeError();
    std::vector<Tensor> items = (*seq)->sequence;
    items.insert(items.begin() + *at, t);
    ctx.setOutputValue(0, RuntimeValue::ofSequence(std::move(items), t.dataType()));
    return support::Status::ok();
}

support::Status sequenceAt(KernelContext &ctx)
{
    auto seq = sequenceInput(ctx, 0);
    if (!seq)
        return seq.takeError();
    if (!ctx.hasInput(1))
        return ctx.error("input 1 (the position) is missing");
    auto at = sequencePosition(ctx, 1, static_cast<std::int64_t>((*seq)->sequence.size()), false, 0);
    if (!at)
        return at.takeError();
    ctx.setOutput(0, (*seq)->sequence[static_cast<std::size_t>(*at)]);
    return support::Status::ok();
}

support::Status sequenceErase(KernelContext &ctx)
{
    auto seq = sequenceInput(ctx, 0);
    if (!seq)
        return seq.takeError();
    const auto n = static_cast<std::int64_t>((*seq)->sequence.size());
    if (n == 0)
        return ctx.error("cannot erase from an empty sequence");
    auto at = sequencePosition(ctx, 1, n, false, n - 1);
    if (!at)
        return at.takeError();
    std::vector<Tensor> items = (*seq)->sequence;
    items.erase(items.begin() + *at);
    ctx.setOutputValue(0, RuntimeValue::ofSequence(std::move(items), sequenceElementType(**seq)));
    return support::Status::ok();
}

support::Status sequenceLength(KernelContext &ctx)
{
    auto seq = sequenceInput(ctx, 0);
    if (!seq)
        return seq.takeError();
    ctx.setOutput(0, Tensor::fromVector<std::int64_t>(TensorProto::INT64, {},
                                                      {static_cast<std::int64_t>((*seq)->sequence.size())}));
    return support::Status::ok();
}

support::Status splitToSequence(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (x.rank() == 0)
        return ctx.error("cannot split a scalar");
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    const std::int64_t length = x.dim(*axis);
    std::vector<std::int64_t> sizes;
    bool keepAxis = true;
    if (!ctx.hasInput(1)) {
        sizes.assign(static_cast<std::size_t>(length), 1);
        keepAxis = ctx.attrInt("keepdims", 1) != 0;
    } else {
        const Tensor split = convertTensor(ctx.input(1), TensorProto::INT64);
        if (!visitInteger(ctx.input(1).dataType(), []<typename T>() {}) || split.rank() > 1)
            return ctx.error("split must be an integer scalar or 1-D tensor");
        const std::int64_t *s = split.data<std::int64_t>();
        if (split.rank() == 0) {
            if (s[0] <= 0)
                return ctx.error("split must be positive, got " + std::to_string(s[0]));
            for (std::int64_t done = 0; done < length; done += s[0])
                sizes.push_back(std::min(s[0], length - done));
        } else {
            std::int64_t total = 0;
            for (std::int64_t i = 0; i < split.size(); ++i) {
                if (s[i] < 0)
                    return ctx.error("split sizes must not be negative");
                total += s[i];
                sizes.push_back(s[i]);
            }
            if (total != length)
                return ctx.error("split sizes add up to " + std::to_string(total) + ", but axis " +
                                 std::to_string(*axis) + " has " + std::to_string(length) + " elements");
        }
    }
    std::vector<Tensor> items;
    std::int64_t start = 0;
    for (const std::int64_t size : sizes) {
        auto piece = sliceAxis(ctx, x, *axis, start, size, keepAxis);
        if (!piece)
            return piece.takeError();
        items.push_back(std::move(*piece));
        start += size;
    }
    ctx.setOutputValue(0, RuntimeValue::ofSequence(std::move(items), x.dataType()));
    return support::Status::ok();
}

support::Status concatFromSequence(KernelContext &ctx)
{
    auto seq = sequenceInput(ctx, 0);
    if (!seq)
        return seq.takeError();
    if (!ctx.hasAttribute("axis"))
        return ctx.error("the axis attribute is required");
    if ((*seq)->sequence.empty())
        return ctx.error("cannot concatenate an empty sequence");
    const bool newAxis = ctx.attrInt("new_axis", 0) != 0;
    const std::size_t rank = (*seq)->sequence.front().rank() + (newAxis ? 1 : 0);
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), rank);
    if (!axis)
        return axis.takeError();
    auto out = joinAxis(ctx, (*seq)->sequence, *axis, newAxis);
    if (!out)
        return out.takeError();
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

// The body runs once per element of the first sequence; sequence inputs give their element at the same
// position, tensor inputs are passed whole. Output j collects the body's output j.
support::Status sequenceMap(KernelContext &ctx)
{
    auto first = sequenceInput(ctx, 0);
    if (!first)
        return first.takeError();
    const ir::GraphId body = ctx.attrGraph("body");
    if (!body.valid())
        return ctx.error("has no body graph");
    const std::size_t n = (*first)->sequence.size();
    for (std::size_t i = 1; i < ctx.inputCount(); ++i) {
        const RuntimeValue *v = ctx.inputValue(i);
        if (!v || v->kind == RuntimeValue::Kind::EmptyOptional)
            return ctx.error("input " + std::to_string(i) + " must be a tensor or a sequence");
        if (v->kind == RuntimeValue::Kind::Sequence && v->sequence.size() != n)
            return ctx.error("input " + std::to_string(i) + " has " + std::to_string(v->sequence.size()) +
                             " elements, the first sequence has " + std::to_string(n));
    }
    const ir::Graph &graph = ctx.model().graph(body);
    std::vector<std::vector<Tensor>> collected(ctx.outputCount());
    for (std::size_t k = 0; k < n; ++k) {
        std::vector<RuntimeValue> inputs;
        for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
            const RuntimeValue &v = *ctx.inputValue(i);
            inputs.push_back(v.kind == RuntimeValue::Kind::Sequence ? RuntimeValue::ofTensor(v.sequence[k]) : v);
        }
        auto outputs = ctx.subgraphs().runSubgraph(body, std::move(inputs));
        if (!outputs)
            return outputs.takeError();
        if (outputs->size() != collected.size())
            return ctx.error("the body returns " + std::to_string(outputs->size()) + " values for " +
                             std::to_string(collected.size()) + " outputs");
        for (std::size_t j = 0; j < collected.size(); ++j) {
            if (!(*outputs)[j].isTensor())
                return ctx.error("the body's output " + std::to_string(j) + " must be a tensor, got " +
                                 (*outputs)[j].describe());
            collected[j].push_back(std::move((*outputs)[j].tensor));
        }
    }
    for (std::size_t j = 0; j < collected.size(); ++j) {
        // with no element, the body's declared output type says what the sequence would hold
        int type = collected[j].empty() ? 0 : collected[j].front().dataType();
        if (!type && j < graph.outputs.size())
            type = ir::tensorElementType(ctx.model().value(graph.outputs[j]).type());
        ctx.setOutputValue(j, RuntimeValue::ofSequence(std::move(collected[j]), type));
    }
    return support::Status::ok();
}

// --- optional kernels

support::Status optionalWrap(KernelContext &ctx)
{
    const RuntimeValue *v = ctx.inputValue(0);
    if (v && v->kind != RuntimeValue::Kind::EmptyOptional) {
        RuntimeValue wrapped = *v;
        wrapped.isOptional = true;
        ctx.setOutputValue(0, std::move(wrapped));
        return support::Status::ok();
    }
    if (v) {
        ctx.setOutputValue(0, *v);
        return support::Status::ok();
    }
    const ir::Attribute *type = ctx.attribute("type");
    if (!type || !type->proto.has_tp())
        return ctx.error("an Optional without input needs the type attribute");
    const onnx::TypeProto &tp = type->proto.tp();
    const bool ofSequence = tp.has_sequence_type();
    ctx.setOutputValue(0, RuntimeValue::emptyOptional(
                              ir::tensorElementType(ofSequence ? tp.sequence_type().elem_type() : tp), ofSequence));
    return support::Status::ok();
}

support::Status optionalHasElement(KernelContext &ctx)
{
    const RuntimeValue *v = ctx.inputValue(0);
    const bool has = v && v->kind != RuntimeValue::Kind::EmptyOptional;
    ctx.setOutput(0, Tensor::fromVector<std::uint8_t>(TensorProto::BOOL, {}, {static_cast<std::uint8_t>(has)}));
    return support::Status::ok();
}

support::Status optionalGetElement(KernelContext &ctx)
{
    const RuntimeValue *v = ctx.inputValue(0);
    if (!v)
        return ctx.error("input 0 is missing");
    if (v->kind == RuntimeValue::Kind::EmptyOptional)
        return ctx.error("the optional input is empty");
    RuntimeValue element = *v;
    element.isOptional = false;
    ctx.setOutputValue(0, std::move(element));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
