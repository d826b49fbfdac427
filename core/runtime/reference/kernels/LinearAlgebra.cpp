// Matrix products and friends: MatMul (numpy batching), Gemm, Einsum (general) and Det.
// Products run through one cache-blocked core.
#include "support/IntegerArithmetic.h"
#include "support/ParallelFor.h"
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Accumulation.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/GemmKernel.h"

#include "ir/Type.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>

namespace portolan::runtime::kernels {

namespace {

constexpr std::int64_t kPanelRows = 4;    // rows of the product accumulated together (each B row is reused)
constexpr std::int64_t kPanelCols = 256;  // columns per panel: 4 × 256 doubles stay in L1
constexpr std::int64_t kChunk = 16;       // fixed-width inner loop the compiler vectorizes without a tail

/// acc + x·y; integer products and sums wrap (two's complement), as every integer op does
/// (docs/integer-semantics.md).
template <typename A>
A addProduct(A acc, A x, A y)
{
    if constexpr (std::is_integral_v<A>)
        return support::wrappingAdd(acc, support::wrappingMul(x, y));
    else
        return acc + x * y;
}

/// For every row i of the M×N product of A (element (i,k) at a[i*rowStride + k*colStride]) and B (element
/// (k,j) at b[k*bRowStride + j*bColStride]): store(i, j0, acc, width) with acc[j] = Σ_k A(i,k)·B(k, j0+j).
template <typename T, typename Store>
void multiply(const T *a, std::int64_t rowStride, std::int64_t colStride, const T *b, std::int64_t bRowStride,
              std::int64_t bColStride, std::int64_t M, std::int64_t N, std::int64_t K, Store &&store)
{
    using A = Accumulator<T>;
    if constexpr (std::is_same_v<A, double>) { // float and double data: the packed kernel
        gemmInDouble<T>({a, rowStride, colStride}, {b, bRowStride, bColStride}, M, N, K,
                        [&](std::int64_t i, std::int64_t j0, const double *sums, std::int64_t width) {
                            store(i, j0, sums, width);
                        },
                        M * N * K > (std::int64_t(1) << 22));
        return;
    }
    const std::int64_t panels = (N + kPanelCols - 1) / kPanelCols;
    // column panels are disjoint in the output, so they can go to different cores
    support::parallelFor(panels, M * N * K > (std::int64_t(1) << 22), [&](std::int64_t first, std::int64_t last) {
        std::array<A, kPanelRows * kPanelCols> panel;
        for (std::int64_t j0 = first * kPanelCols; j0 < std::min(N, last * kPanelCols); j0 += kPanelCols) {
            const std::int64_t width = std::min(kPanelCols, N - j0);
            const std::int64_t chunked = width - width % kChunk;
            for (std::int64_t i0 = 0; i0 < M; i0 += kPanelRows) {
                const std::int64_t height = std::min(kPanelRows, M - i0);
                std::fill(panel.begin(), panel.end(), A(0));
                for (std::int64_t k = 0; k < K; ++k) {
                    const T *bRow = b + k * bRowStride + j0 * bColStride;
                    for (std::int64_t r = 0; r < height; ++r) {
                        const A av = static_cast<A>(a[(i0 + r) * rowStride + k * colStride]);
                        A *acc = panel.data() + r * kPanelCols;
                        if (bColStride == 1)
                            for (std::int64_t j = 0; j < chunked; j += kChunk)
                                for (std::int64_t c = 0; c < kChunk; ++c)
                                    acc[j + c] = addProduct(acc[j + c], av, static_cast<A>(bRow[j + c]));
                        for (std::int64_t j = bColStride == 1 ? chunked : 0; j < width; ++j)
                            acc[j] = addProduct(acc[j], av, static_cast<A>(bRow[j * bColStride]));
                    }
                }
                for (std::int64_t r = 0; r < height; ++r)
                    store(i0 + r, j0, panel.data() + r * kPanelCols, width);
            }
        }
    });
}

} // namespace

support::Status matMul(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor a = toComputeType(ctx.input(0));
    const Tensor b = toComputeType(ctx.input(1));
    if (a.dataType() != b.dataType())
        return ctx.error("operands have different element types");
    if (a.rank() == 0 || b.rank() == 0)
        return ctx.error("does not take scalars");
    // 1-D operands become a row (A) or a column (B) whose dim is dropped from the result.
    Shape aShape = a.shape(), bShape = b.shape();
    if (a.rank() == 1)
        aShape.insert(aShape.begin(), 1);
    if (b.rank() == 1)
        bShape.push_back(1);
    const std::int64_t M = aShape[aShape.size() - 2], K = aShape.back();
    const std::int64_t N = bShape.back();
    if (bShape[bShape.size() - 2] != K)
        return ctx.error("inner dims do not match: " + shapeString(a.shape()) + " × " + shapeString(b.shape()));
    const Shape aBatch(aShape.begin(), aShape.end() - 2), bBatch(bShape.begin(), bShape.end() - 2);
    const auto batch = broadcastShapes({aBatch, bBatch});
    if (!batch)
        return ctx.error("batch dims do not broadcast: " + shapeString(a.shape()) + " × " + shapeString(b.shape()));
    Shape outShape = *batch;
    if (a.rank() > 1)
        outShape.push_back(M);
    if (b.rank() > 1)
        outShape.push_back(N);
    auto out = ctx.allocateUninitialized(a.dataType(), outShape); // every batch's product is stored whole
    if (!out)
        return out.takeError();

    // One B for every batch of A (a [S, 1, K] × [K, N] projection): A's batches are rows of one product,
    // so B is packed once instead of once per batch.
    const bool sharedB = elementCount(bBatch) == 1 && elementCount(aBatch) == elementCount(*batch);
    const std::int64_t batches = sharedB ? 1 : elementCount(*batch);
    const std::int64_t rows = sharedB ? elementCount(*batch) * M : M;
    const bool known = visitNumeric(a.dataType(), [&]<typename T>() {
        T *y = out->mutableData<T>();
        BroadcastWalker walk(*batch, {aBatch, bBatch});
        for (std::int64_t p = 0; p < batches; ++p, walk.next()) {
            T *yBatch = y + p * M * N;
            multiply(a.data<T>() + walk.offset(0) * M * K, K, 1, b.data<T>() + walk.offset(1) * K * N, N, 1, rows, N, K,
                     [&](std::int64_t i, std::int64_t j0, const auto *acc, std::int64_t width) {
                         for (std::int64_t j = 0; j < width; ++j)
                             yBatch[i * N + j0 + j] = static_cast<T>(acc[j]);
                     });
        }
    });
    if (!known)
        return ctx.error("does not take " + ir::dataTypeName(a.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

support::Status gemm(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor a = toComputeType(ctx.input(0));
    const Tensor b = toComputeType(ctx.input(1));
    const Tensor c = ctx.hasInput(2) ? toComputeType(ctx.input(2)) : Tensor();
    if (a.rank() != 2 || b.rank() != 2)
        return ctx.error("A and B must be 2-D");
    if (a.dataType() != b.dataType() || (c.defined() && c.dataType() != a.dataType()))
        return ctx.error("operands have different element types");
    const bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
    const std::int64_t M = transA ? a.dim(1) : a.dim(0), K = transA ? a.dim(0) : a.dim(1);
    const std::int64_t N = transB ? b.dim(0) : b.dim(1);
    if ((transB ? b.dim(1) : b.dim(0)) != K)
        return ctx.error("inner dims do not match (transA=" + std::to_string(transA) + ", transB=" +
                         std::to_string(transB) + ")");
    // C broadcasts to [M, N] one way (the legacy `broadcast` attribute only allowed what this allows).
    std::int64_t cRowStride = 0, cColStride = 0;
    if (c.defined()) {
        if (c.rank() > 2)
            return ctx.error("C must have rank 2 or less");
        const std::int64_t cm = c.rank() == 2 ? c.dim(0) : 1, cn = c.rank() >= 1 ? c.dim(c.rank() - 1) : 1;
        if ((cm != 1 && cm != M) || (cn != 1 && cn != N))
            return ctx.error("C " + shapeString(c.shape()) + " does not broadcast to [" + std::to_string(M) + "," +
                             std::to_string(N) + "]");
        // before opset 7, broadcast = 0 (the default) asked C to be exactly [M, N]
        if (ctx.node().domain.empty() && ctx.opset() < 7 && ctx.attrInt("broadcast", 0) == 0 && (c.rank() != 2 || cm != M || cn != N))
            return ctx.error("C " + shapeString(c.shape()) + " is not [" + std::to_string(M) + "," + std::to_string(N) +
                             "] and broadcast is 0");
        cRowStride = cm == 1 ? 0 : cn;
        cColStride = cn == 1 ? 0 : 1;
    }
    const double alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
    auto out = ctx.allocateUninitialized(a.dataType(), {M, N});
    if (!out)
        return out.takeError();
    const bool known = visitNumeric(a.dataType(), [&]<typename T>() {
        T *y = out->mutableData<T>();
        const T *cData = c.defined() ? c.data<T>() : nullptr;
        multiply(a.data<T>(), transA ? 1 : K, transA ? M : 1, b.data<T>(), transB ? 1 : N, transB ? K : 1, M, N, K,
                 [&](std::int64_t i, std::int64_t j0, const auto *acc, std::int64_t width) {
                     for (std::int64_t j = 0; j < width; ++j) {
                         double v = alpha * static_cast<double>(acc[j]);
                         if (cData)
                             v += beta * static_cast<double>(cData[i * cRowStride + (j0 + j) * cColStride]);
                         y[i * N + j0 + j] = fromDouble<T>(v);
                     }
                 });
    });
    if (!known)
        return ctx.error("does not take " + ir::dataTypeName(a.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

namespace {

// Einsum labels: letters are their ASCII code; the dims an ellipsis covers get 256 + their position
// in the right-aligned broadcast of every operand's ellipsis dims.
constexpr int kEllipsis = -1;
constexpr int kEllipsisLabel = 256;

bool isLabel(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/// One term's labels, kEllipsis for "...", or nullopt on a malformed term.
std::optional<std::vector<int>> parseTerm(std::string_view term)
{
    std::vector<int> labels;
    bool ellipsis = false;
    for (std::size_t i = 0; i < term.size(); ++i) {
        if (term[i] == ' ')
            continue;
        if (term.substr(i, 3) == "...") {
            if (ellipsis)
                return std::nullopt;
            ellipsis = true;
            labels.push_back(kEllipsis);
            i += 2;
        } else if (isLabel(term[i])) {
            labels.push_back(term[i]);
        } else {
            return std::nullopt;
        }
    }
    return labels;
}

struct EinsumPlan {
    std::vector<int> labels;                         // output labels first, then the summed ones
    std::size_t outputLabels = 0;
    std::vector<std::int64_t> sizes;                 // per label
    std::vector<std::vector<std::int64_t>> strides;  // [operand][label], 0 where absent or broadcast
    std::vector<std::vector<bool>> uses;             // [operand][label]: the operand's term has it
    Shape outShape;
};

support::Expected<EinsumPlan> planEinsum(KernelContext &ctx, const std::string &equation)
{
    const std::size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::vector<int>> terms;
    for (std::size_t start = 0;;) {
        const std::size_t comma = lhs.find(',', start);
        auto term = parseTerm(std::string_view(lhs).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!term)
            return ctx.error("malformed equation '" + equation + "'");
        terms.push_back(std::move(*term));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (terms.size() != ctx.inputCount())
        return ctx.error("the equation '" + equation + "' has " + std::to_string(terms.size()) + " operands but the node has " +
                         std::to_string(ctx.inputCount()) + " inputs");

    // Expand each ellipsis into its dims' labels and record every label's size.
    std::size_t ellipsisRank = 0;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        const auto letters = static_cast<std::size_t>(std::count_if(terms[t].begin(), terms[t].end(), [](int l) { return l != kEllipsis; }));
        const bool hasEllipsis = letters != terms[t].size();
        const std::size_t rank = ctx.input(t).rank();
        if (rank < letters || (!hasEllipsis && rank != letters))
            return ctx.error("operand " + std::to_string(t) + " has rank " + std::to_string(rank) + " but its term has " +
                             std::to_string(letters) + " labels");
        ellipsisRank = std::max(ellipsisRank, hasEllipsis ? rank - letters : 0);
    }
    std::map<int, std::int64_t> sizes;
    std::map<int, int> counts;
    std::vector<std::vector<int>> dimLabels(terms.size());
    for (std::size_t t = 0; t < terms.size(); ++t) {
        const Tensor &x = ctx.input(t);
        const std::size_t covered = x.rank() - (terms[t].size() - (std::find(terms[t].begin(), terms[t].end(), kEllipsis) != terms[t].end()));
        for (const int l : terms[t]) {
            if (l != kEllipsis) {
                dimLabels[t].push_back(l);
                continue;
            }
            for (std::size_t e = 0; e < covered; ++e)
                dimLabels[t].push_back(kEllipsisLabel + static_cast<int>(ellipsisRank - covered + e));
        }
        for (std::size_t d = 0; d < x.rank(); ++d) {
            const int l = dimLabels[t][d];
            const std::int64_t size = x.dim(d);
            auto [it, inserted] = sizes.emplace(l, size);
            if (!inserted && it->second != size) {
                if (l >= kEllipsisLabel && (it->second == 1 || size == 1))
                    it->second = std::max(it->second, size);
                else
                    return ctx.error("label '" + std::string(1, static_cast<char>(l < kEllipsisLabel ? l : '.')) +
                                     "' has sizes " + std::to_string(it->second) + " and " + std::to_string(size));
            }
        }
        for (const int l : dimLabels[t])
            ++counts[l];
    }

    EinsumPlan plan;
    std::vector<int> output;
    if (arrow != std::string::npos) {
        auto term = parseTerm(std::string_view(equation).substr(arrow + 2));
        if (!term)
            return ctx.error("malformed output term in '" + equation + "'");
        for (const int l : *term) {
            if (l == kEllipsis) {
                for (std::size_t e = 0; e < ellipsisRank; ++e)
                    output.push_back(kEllipsisLabel + static_cast<int>(e));
            } else if (!sizes.contains(l) || std::find(output.begin(), output.end(), l) != output.end()) {
                return ctx.error("output label '" + std::string(1, static_cast<char>(l)) + "' is repeated or not in any operand");
            } else {
                output.push_back(l);
            }
        }
    } else { // implicit: the ellipsis dims, then the labels used once, in alphabetical (ASCII) order
        for (std::size_t e = 0; e < ellipsisRank; ++e)
            output.push_back(kEllipsisLabel + static_cast<int>(e));
        for (const auto &[l, n] : counts)
            if (l < kEllipsisLabel && n == 1)
                output.push_back(l);
    }
    plan.labels = output;
    plan.outputLabels = output.size();
    for (const auto &[l, size] : sizes)
        if (std::find(output.begin(), output.end(), l) == output.end())
            plan.labels.push_back(l);
    for (const int l : plan.labels)
        plan.sizes.push_back(sizes.at(l));
    plan.outShape.assign(plan.sizes.begin(), plan.sizes.begin() + static_cast<std::ptrdiff_t>(plan.outputLabels));

    for (std::size_t t = 0; t < terms.size(); ++t) {
        const Tensor &x = ctx.input(t);
        std::vector<std::int64_t> strides(plan.labels.size(), 0);
        std::vector<bool> uses(plan.labels.size(), false);
        std::int64_t stride = 1;
        for (std::size_t d = x.rank(); d-- > 0; stride *= x.dim(d)) {
            const auto at = std::find(plan.labels.begin(), plan.labels.end(), dimLabels[t][d]) - plan.labels.begin();
            uses[static_cast<std::size_t>(at)] = true;
            if (x.dim(d) != 1 || plan.sizes[static_cast<std::size_t>(at)] == 1)
                strides[static_cast<std::size_t>(at)] += stride; // repeated labels add up: a diagonal
        }
        plan.strides.push_back(std::move(strides));
        plan.uses.push_back(std::move(uses));
    }
    return plan;
}

/// Offsets, in an operand with per-label `strides`, of every combination of the `group` labels (row-major).
std::vector<std::int64_t> offsetTable(const EinsumPlan &plan, const std::vector<std::size_t> &group,
                                      const std::vector<std::int64_t> &strides)
{
    std::vector<std::int64_t> table{0};
    for (const std::size_t l : group) {
        std::vector<std::int64_t> next;
        next.reserve(table.size() * static_cast<std::size_t>(plan.sizes[l]));
        for (const std::int64_t base : table)
            for (std::int64_t i = 0; i < plan.sizes[l]; ++i)
                next.push_back(base + i * strides[l]);
        table = std::move(next);
    }
    return table;
}

/// Two operands whose summed labels both use: a batched matrix product. Each batch is packed into
/// A [rows, summed] and B [summed, cols] (diagonals and broadcasts fall out of the strides) and run
/// through the MatMul core, so attention-style einsums cost what a MatMul does.
bool isPairProduct(const EinsumPlan &plan)
{
    if (plan.strides.size() != 2)
        return false;
    for (std::size_t l = plan.outputLabels; l < plan.labels.size(); ++l)
        if (!plan.uses[0][l] || !plan.uses[1][l])
            return false;
    return true;
}

template <typename T>
support::Status einsumPair(KernelContext &ctx, const EinsumPlan &plan, const Tensor &a, const Tensor &b, Tensor &out)
{
    std::vector<std::size_t> batch, rows, cols, inner;
    for (std::size_t l = 0; l < plan.labels.size(); ++l) {
        if (l >= plan.outputLabels)
            inner.push_back(l);
        else if (plan.uses[0][l] && plan.uses[1][l])
            batch.push_back(l);
        else
            (plan.uses[0][l] ? rows : cols).push_back(l);
    }
    std::vector<std::int64_t> outStrides(plan.labels.size(), 0);
    for (std::size_t l = plan.outputLabels, stride = 1; l-- > 0; stride *= static_cast<std::size_t>(plan.sizes[l]))
        outStrides[l] = static_cast<std::int64_t>(stride);
    const auto aBatch = offsetTable(plan, batch, plan.strides[0]), aRows = offsetTable(plan, rows, plan.strides[0]);
    const auto aInner = offsetTable(plan, inner, plan.strides[0]);
    const auto bBatch = offsetTable(plan, batch, plan.strides[1]), bInner = offsetTable(plan, inner, plan.strides[1]);
    const auto bCols = offsetTable(plan, cols, plan.strides[1]);
    const auto yBatch = offsetTable(plan, batch, outStrides), yRows = offsetTable(plan, rows, outStrides);
    const auto yCols = offsetTable(plan, cols, outStrides);
    const auto M = static_cast<std::int64_t>(aRows.size()), K = static_cast<std::int64_t>(aInner.size());
    const auto N = static_cast<std::int64_t>(bCols.size());
    auto packedA = ctx.allocate(a.dataType(), {M, K});
    auto packedB = ctx.allocate(a.dataType(), {K, N});
    if (!packedA || !packedB)
        return !packedA ? packedA.takeError() : packedB.takeError();
    const T *x = a.data<T>(), *w = b.data<T>();
    T *pa = packedA->mutableData<T>(), *pb = packedB->mutableData<T>(), *y = out.mutableData<T>();
    for (std::size_t p = 0; p < aBatch.size(); ++p) {
        for (std::int64_t i = 0; i < M; ++i)
            for (std::int64_t k = 0; k < K; ++k)
                pa[i * K + k] = x[aBatch[p] + aRows[i] + aInner[k]];
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t j = 0; j < N; ++j)
                pb[k * N + j] = w[bBatch[p] + bInner[k] + bCols[j]];
        multiply(pa, K, 1, pb, N, 1, M, N, K, [&](std::int64_t i, std::int64_t j0, const auto *acc, std::int64_t width) {
            for (std::int64_t j = 0; j < width; ++j)
                y[yBatch[p] + yRows[i] + yCols[j0 + j]] = static_cast<T>(acc[j]);
        });
    }
    return support::Status::ok();
}

} // namespace

support::Status einsum(KernelContext &ctx)
{
    if (ctx.inputCount() == 0)
        return ctx.error("needs at least one operand");
    if (auto st = ctx.requireInputs(ctx.inputCount()); !st)
        return st;
    std::vector<Tensor> operands;
    for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
        operands.push_back(toComputeType(ctx.input(i)));
        if (operands[i].dataType() != operands[0].dataType())
            return ctx.error("operands have different element types");
    }
    auto plan = planEinsum(ctx, ctx.attrString("equation"));
    if (!plan)
        return plan.takeError();
    auto out = ctx.allocate(operands[0].dataType(), plan->outShape);
    if (!out)
        return out.takeError();

    const std::size_t labels = plan->labels.size(), count = operands.size();
    std::int64_t summed = 1;
    for (std::size_t l = plan->outputLabels; l < labels; ++l)
        summed *= plan->sizes[l];
    support::Status status;
    const bool known = visitNumeric(operands[0].dataType(), [&]<typename T>() {
        if (isPairProduct(*plan)) {
            status = einsumPair<T>(ctx, *plan, operands[0], operands[1], *out);
            return;
        }
        using A = Accumulator<T>;
        std::vector<const T *> data;
        for (const Tensor &t : operands)
            data.push_back(t.data<T>());
        T *y = out->mutableData<T>();
        // One odometer over every label, output labels outermost: each output element sums its
        // `summed` consecutive steps.
        std::vector<std::int64_t> counter(labels, 0), offsets(count, 0);
        if (summed == 0)
            return; // an empty summed label: every output stays 0
        for (std::int64_t o = 0; o < out->size(); ++o) {
            A acc = 0;
            for (std::int64_t s = 0; s < summed; ++s) {
                A product = 1;
                for (std::size_t t = 0; t < count; ++t)
                    product *= static_cast<A>(data[t][offsets[t]]);
                acc += product;
                for (std::size_t l = labels; l-- > 0;) {
                    if (++counter[l] < plan->sizes[l]) {
                        for (std::size_t t = 0; t < count; ++t)
                            offsets[t] += plan->strides[t][l];
                        break;
                    }
                    counter[l] = 0;
                    for (std::size_t t = 0; t < count; ++t)
                        offsets[t] -= plan->strides[t][l] * (plan->sizes[l] - 1);
                }
            }
            y[o] = static_cast<T>(acc);
        }
    });
    if (!known)
        return ctx.error("does not take " + ir::dataTypeName(operands[0].dataType()));
    if (!status)
        return status;
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

support::Status det(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    if (in.rank() < 2 || in.dim(in.rank() - 1) != in.dim(in.rank() - 2))
        return ctx.error("needs square matrices [..., M, M]");
    const std::int64_t n = in.dim(in.rank() - 1);
    auto out = ctx.allocate(in.dataType(), Shape(in.shape().begin(), in.shape().end() - 2));
    if (!out)
        return out.takeError();
    auto scratch = ctx.allocate(TensorProto::DOUBLE, {n, n});
    if (!scratch)
        return scratch.takeError();
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        const T *x = in.data<T>();
        T *y = out->mutableData<T>();
        double *m = scratch->mutableData<double>();
        for (std::int64_t p = 0; p < out->size(); ++p) {
            std::copy(x + p * n * n, x + (p + 1) * n * n, m);
            // LU with partial pivoting: det = sign × Π pivots.
            double result = 1;
            for (std::int64_t c = 0; c < n; ++c) {
                std::int64_t pivot = c;
                for (std::int64_t r = c + 1; r < n; ++r)
                    if (std::fabs(m[r * n + c]) > std::fabs(m[pivot * n + c]))
                        pivot = r;
                if (pivot != c) {
                    std::swap_ranges(m + c * n, m + (c + 1) * n, m + pivot * n);
                    result = -result;
                }
                const double d = m[c * n + c];
                result *= d;
                if (d == 0)
                    break;
                for (std::int64_t r = c + 1; r < n; ++r) {
                    const double f = m[r * n + c] / d;
                    for (std::int64_t k = c; k < n; ++k)
                        m[r * n + k] -= f * m[c * n + k];
                }
            }
            y[p] = static_cast<T>(result);
        }
    });
    if (!known)
        return ctx.error("needs a floating-point input, not " + ir::dataTypeName(in.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
