// Reading a product node's shapes and attributes (see MatrixProduct.h).
#include "runtime/cuda/MatrixProduct.h"

#include "runtime/cuda/CudaKernel.h"

#include <climits>
#include <functional>
#include <numeric>

namespace portolan::runtime::cuda {

namespace {

std::int64_t product(const Shape &shape, std::size_t from, std::size_t to)
{
    return std::accumulate(shape.begin() + static_cast<std::ptrdiff_t>(from), shape.begin() + static_cast<std::ptrdiff_t>(to),
                           std::int64_t(1), std::multiplies<>());
}

/// A numpy MatMul of A [..., M, K] and B [..., K, N] (both at least 2-D) whose batch dims are
/// either the output's or all ones.
bool describeMatMul(const NodeBinding &b, MatrixProduct &p, std::string &whyNot)
{
    const Shape &a = b.inputs[0].shape, &w = b.inputs[1].shape, &out = b.outputs[0].shape;
    if (a.size() < 2 || w.size() < 2 || out.size() < 2) {
        whyNot = "a 1-D operand";
        return false;
    }
    p.m = a[a.size() - 2];
    p.k = a.back();
    p.n = w.back();
    p.batch = product(out, 0, out.size() - 2);
    const std::int64_t batchA = product(a, 0, a.size() - 2), batchB = product(w, 0, w.size() - 2);
    if ((batchA != p.batch && batchA != 1) || (batchB != p.batch && batchB != 1) || p.batch > INT32_MAX) {
        whyNot = "batch dims broadcast partially";
        return false;
    }
    p.strideA = batchA == 1 ? 0 : p.m * p.k;
    p.strideB = batchB == 1 ? 0 : p.k * p.n;
    p.strideC = p.m * p.n;
    if (const BoundTensor *bias = b.input(2)) {
        if (elementCount(bias->shape) != p.n) {
            whyNot = "the bias is not one value per column";
            return false;
        }
        p.addend = MatrixProduct::Addend::Bias;
        p.beta = 1;
    }
    return true;
}

/// Gemm: 2-D operands, transposes, alpha, and beta·C with C a row of N or [M, N].
bool describeGemm(const NodeBinding &b, MatrixProduct &p, std::string &whyNot)
{
    const KernelContext &a = b.attributes;
    p.transA = a.attrInt("transA", 0) != 0;
    p.transB = a.attrInt("transB", 0) != 0;
    p.alpha = a.attrFloat("alpha", 1.f);
    p.beta = a.attrFloat("beta", 1.f);
    const Shape &sa = b.inputs[0].shape, &sb = b.inputs[1].shape;
    if (sa.size() != 2 || sb.size() != 2) {
        whyNot = "Gemm operands are not 2-D";
        return false;
    }
    p.m = p.transA ? sa[1] : sa[0];
    p.k = p.transA ? sa[0] : sa[1];
    p.n = p.transB ? sb[0] : sb[1];
    p.strideC = p.m * p.n;
    const BoundTensor *c = b.input(2);
    if (!c || p.beta == 0.f)
        return true;
    const bool row = elementCount(c->shape) == p.n && (c->shape.size() == 1 || (c->shape.size() == 2 && c->shape[0] == 1));
    if (c->shape == Shape{p.m, p.n}) {
        p.addend = MatrixProduct::Addend::Matrix;
    } else if (row) {
        p.addend = MatrixProduct::Addend::Bias;
    } else {
        whyNot = "C is neither [M, N] nor a row of N";
        return false;
    }
    return true;
}

} // namespace

std::optional<MatrixProduct> describeProduct(const NodeBinding &b, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return std::nullopt;
    MatrixProduct p;
    const bool gemm = b.node.opType == "Gemm" || b.node.opType == "FusedGemm";
    if (!(gemm ? describeGemm(b, p, whyNot) : describeMatMul(b, p, whyNot)))
        return std::nullopt;
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0) {
        whyNot = "an empty product";
        return std::nullopt;
    }
    const std::optional<FunctionSpec> activation = fusedActivation(b.attributes);
    if (!activation) {
        whyNot = "unknown activation";
        return std::nullopt;
    }
    p.activation = *activation;
    return p;
}

} // namespace portolan::runtime::cuda
