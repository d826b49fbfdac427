// RotaryEmbedding (opset 23) and TensorScatter (opset 24): the position embedding and the key/value
// cache update that feed the standard Attention op (StandardAttention.cpp).
//
// RotaryEmbedding computes in X's compute type (float for float, float16 and bfloat16), each rotated
// value from one product pair, as ONNX's reference does; TensorScatter moves elements unchanged.
#include "runtime/reference/kernels/DataMovement.h"

#include <string>
#include <vector>

namespace portolan::runtime::kernels {

namespace {

/// Where the rotation reads: X as (batch, heads, seq, head) in either layout, and the caches' rows.
struct RotaryLayout {
    bool threeD = false;
    std::int64_t batch = 0, heads = 0, seq = 0, headSize = 0, rotated = 0;

    std::int64_t offset(std::int64_t b, std::int64_t h, std::int64_t s) const
    {
        return threeD ? ((b * seq + s) * heads + h) * headSize : ((b * heads + h) * seq + s) * headSize;
    }
};

support::Expected<RotaryLayout> rotaryLayout(const KernelContext &ctx, const Tensor &x)
{
    RotaryLayout l;
    if (x.rank() != 3 && x.rank() != 4)
        return ctx.error("X must be 3-D (batch, sequence, hidden) or 4-D (batch, heads, sequence, head_size)");
    l.threeD = x.rank() == 3;
    l.batch = x.dim(0);
    const ir::Attribute *numHeads = ctx.attribute("num_heads");
    if (l.threeD) {
        if (!numHeads || numHeads->proto.i() <= 0)
            return ctx.error("3-D X needs a positive num_heads attribute");
        l.heads = numHeads->proto.i();
        l.seq = x.dim(1);
        if (x.dim(2) % l.heads != 0)
            return ctx.error("X's hidden size " + std::to_string(x.dim(2)) + " is not a multiple of num_heads " +
                             std::to_string(l.heads));
        l.headSize = x.dim(2) / l.heads;
    } else {
        l.heads = x.dim(1);
        l.seq = x.dim(2);
        l.headSize = x.dim(3);
        // The spec reads num_heads only for 3-D X; a value that contradicts the 4-D shape is an error.
        if (numHeads && numHeads->proto.i() != l.heads)
            return ctx.error("num_heads " + std::to_string(numHeads->proto.i()) + " disagrees with 4-D X's head dim " +
                             std::to_string(l.heads));
    }
    const std::int64_t dim = ctx.attrInt("rotary_embedding_dim", 0);
    if (dim < 0 || dim % 2 != 0 || dim > l.headSize)
        return ctx.error("rotary_embedding_dim must be even, non-negative and at most the head size " +
                         std::to_string(l.headSize) + ", got " + std::to_string(dim));
    if (dim == 0 && l.headSize % 2 != 0)
        return ctx.error("the head size " + std::to_string(l.headSize) + " must be even to rotate it whole");
    l.rotated = dim == 0 ? l.headSize : dim;
    return l;
}

} // namespace

support::Status rotaryEmbedding(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &xIn = ctx.input(0), &cosIn = ctx.input(1), &sinIn = ctx.input(2);
    if (!isFloatingType(xIn.dataType()))
        return ctx.error("X must be a floating-point tensor");
    if (cosIn.dataType() != xIn.dataType() || sinIn.dataType() != xIn.dataType())
        return ctx.error("cos_cache and sin_cache must have X's element type");
    const std::int64_t interleaved = ctx.attrInt("interleaved", 0);
    if (interleaved != 0 && interleaved != 1)
        return ctx.error("interleaved must be 0 or 1, got " + std::to_string(interleaved));
    auto layout = rotaryLayout(ctx, xIn);
    if (!layout)
        return layout.takeError();
    const RotaryLayout &l = *layout;
    const std::int64_t half = l.rotated / 2;
    if (cosIn.shape() != sinIn.shape())
        return ctx.error("cos_cache " + shapeString(cosIn.shape()) + " and sin_cache " + shapeString(sinIn.shape()) +
                         " must have the same shape");

    // cacheRow[b·seq + s]: the cache row of token (b, s), from position_ids or the token itself.
    std::vector<std::int64_t> cacheRow;
    if (ctx.hasInput(3)) {
        const Tensor &ids = ctx.input(3);
        if (ids.dataType() != TensorProto::INT64 || ids.shape() != Shape{l.batch, l.seq})
            return ctx.error("position_ids must be int64 of shape " + shapeString({l.batch, l.seq}));
        if (cosIn.rank() != 2 || cosIn.dim(1) != half)
            return ctx.error("with position_ids the caches must be (positions, " + std::to_string(half) +
                             "), got " + shapeString(cosIn.shape()));
        cacheRow.assign(ids.data<std::int64_t>(), ids.data<std::int64_t>() + ids.size());
        for (const std::int64_t p : cacheRow)
            if (p < 0 || p >= cosIn.dim(0))
                return ctx.error("position id " + std::to_string(p) + " is outside the caches' " +
                                 std::to_string(cosIn.dim(0)) + " rows");
    } else {
        if (cosIn.shape() != Shape{l.batch, l.seq, half})
            return ctx.error("without position_ids the caches must be " + shapeString({l.batch, l.seq, half}) +
                             ", got " + shapeString(cosIn.shape()));
        cacheRow.resize(static_cast<std::size_t>(l.batch * l.seq));
        for (std::size_t i = 0; i < cacheRow.size(); ++i)
            cacheRow[i] = static_cast<std::int64_t>(i);
    }

    const Tensor x = toComputeType(xIn), cosCache = toComputeType(cosIn), sinCache = toComputeType(sinIn);
    auto out = ctx.allocateUninitialized(x.dataType(), x.shape());
    if (!out)
        return out.takeError();
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        const T *px = x.data<T>(), *pc = cosCache.data<T>(), *ps = sinCache.data<T>();
        T *py = out->mutableData<T>();
        for (std::int64_t b = 0; b < l.batch; ++b)
            for (std::int64_t h = 0; h < l.heads; ++h)
                for (std::int64_t s = 0; s < l.seq; ++s) {
                    const std::int64_t at = l.offset(b, h, s);
                    const T *in = px + at, *c = pc + cacheRow[b * l.seq + s] * half,
                            *sn = ps + cacheRow[b * l.seq + s] * half;
                    T *y = py + at;
                    // Pair k is (k, k + half) of the rotated width, or (2k, 2k + 1) when interleaved.
                    for (std::int64_t k = 0; k < half; ++k) {
                        const std::int64_t first = interleaved ? 2 * k : k, second = interleaved ? 2 * k + 1 : k + half;
                        const T a = in[first], bb = in[second];
                        y[first] = c[k] * a - sn[k] * bb;
                        y[second] = sn[k] * a + c[k] * bb;
                    }
                    std::copy(in + l.rotated, in + l.headSize, y + l.rotated); // the part left unrotated
                }
    });
    if (!known)
        return unsupportedType(ctx, xIn.dataType());
    ctx.setOutput(0, fromComputeType(*out, xIn.dataType()));
    return support::Status::ok();
}

support::Status tensorScatter(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &past = ctx.input(0), &update = ctx.input(1);
    if (update.dataType() != past.dataType())
        return ctx.error("update must have past_cache's element type");
    const std::string mode = ctx.attrString("mode", "linear");
    if (mode != "linear" && mode != "circular")
        return ctx.error("mode must be \"linear\" or \"circular\", got \"" + mode + "\"");
    const bool circular = mode == "circular";
    if (past.rank() < 2 || update.rank() != past.rank())
        return ctx.error("past_cache and update must have the same rank, at least 2 (batch and sequence)");
    auto axisOr = normalizeAxis(ctx, ctx.attrInt("axis", -2), past.rank());
    if (!axisOr)
        return axisOr.takeError();
    const std::size_t axis = *axisOr;
    if (axis == 0)
        return ctx.error("axis must not be 0, the batch dim");
    for (std::size_t d = 0; d < past.rank(); ++d)
        if (d != axis && update.dim(d) != past.dim(d))
            return ctx.error("update " + shapeString(update.shape()) + " must match past_cache " +
                             shapeString(past.shape()) + " off axis " + std::to_string(axis));
    const std::int64_t batch = past.dim(0), capacity = past.dim(axis), length = update.dim(axis);
    if (length > capacity)
        return ctx.error("update's sequence length " + std::to_string(length) + " exceeds the cache's " +
                         std::to_string(capacity));

    std::vector<std::int64_t> starts(static_cast<std::size_t>(batch), 0);
    if (ctx.hasInput(2)) {
        const Tensor &indices = ctx.input(2);
        if (indices.dataType() != TensorProto::INT64 || indices.shape() != Shape{batch})
            return ctx.error("write_indices must be int64 of shape " + shapeString({batch}));
        starts.assign(indices.data<std::int64_t>(), indices.data<std::int64_t>() + batch);
    }
    for (std::int64_t &start : starts) {
        if (circular) {
            if (capacity == 0 && length > 0)
                return ctx.error("circular mode cannot write into a cache of sequence length 0");
            start = capacity == 0 ? 0 : ((start % capacity) + capacity) % capacity;
        } else if (start < 0 || start > capacity - length) {
            return ctx.error("linear mode needs 0 <= write_indices (" + std::to_string(start) +
                             ") and write_indices + sequence_length (" + std::to_string(length) +
                             ") <= max_sequence_length (" + std::to_string(capacity) + ")");
        }
    }

    // (outer, axis, inner) views: outer runs over the dims before the axis, batch first.
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d)
        outer *= past.dim(d);
    for (std::size_t d = axis + 1; d < past.rank(); ++d)
        inner *= past.dim(d);
    const std::int64_t perSample = batch == 0 ? 1 : outer / batch;
    auto out = ctx.allocateUninitialized(past.dataType(), past.shape());
    if (!out)
        return out.takeError();
    const bool known = visitElements(past.dataType(), [&]<typename T>() {
        const T *src = elements<T>(past), *upd = elements<T>(update);
        T *dst = mutableElements<T>(*out);
        std::copy(src, src + past.size(), dst);
        for (std::int64_t o = 0; o < outer; ++o) {
            const std::int64_t start = starts[static_cast<std::size_t>(o / perSample)];
            for (std::int64_t s = 0; s < length; ++s) {
                // Only the sequence position wraps in circular mode (start is already reduced).
                const std::int64_t at = circular ? (start + s) % capacity : start + s;
                const T *from = upd + (o * length + s) * inner;
                std::copy(from, from + inner, dst + (o * capacity + at) * inner);
            }
        }
    });
    if (!known)
        return unsupportedType(ctx, past.dataType());
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
