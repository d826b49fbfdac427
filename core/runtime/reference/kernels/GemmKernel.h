// The reference GEMM under MatMul, Gemm, Einsum and the convolutions for float and double data. It sums
// in double (the oracle's accuracy) and is fast where that is free: both operands are packed into
// cache-sized blocks of doubles and multiplied by a register-blocked micro-kernel chosen for the CPU at
// run time (AVX-512, AVX2 + FMA, or plain C++).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace portolan::runtime::kernels {

/// A read-only matrix whose element (i, j) is data[i·rowStride + j·colStride].
template <typename T>
struct StridedMatrix {
    const T *data = nullptr;
    std::int64_t rowStride = 0, colStride = 1;
};

/// Receives row `row` of the product, columns col0 … col0+count, as double sums.
using SumRowSink = std::function<void(std::int64_t row, std::int64_t col0, const double *sums, std::int64_t count)>;

/// The M×N product of the M×K matrix a and the K×N matrix b, each element summed in double over all of K,
/// handed to `sink` one block of columns of one row at a time. With `parallel`, blocks are computed on
/// several cores at once, so sink must write only what its call is handed.
template <typename T>
void gemmInDouble(StridedMatrix<T> a, StridedMatrix<T> b, std::int64_t M, std::int64_t N, std::int64_t K,
                  const SumRowSink &sink, bool parallel);

extern template void gemmInDouble<float>(StridedMatrix<float>, StridedMatrix<float>, std::int64_t, std::int64_t,
                                         std::int64_t, const SumRowSink &, bool);
extern template void gemmInDouble<double>(StridedMatrix<double>, StridedMatrix<double>, std::int64_t, std::int64_t,
                                          std::int64_t, const SumRowSink &, bool);

/// Which micro-kernel gemmInDouble runs: "avx512", "avx2" or "plain" (the best this CPU has, unless
/// useGemmMicroKernel chose another).
const char *gemmMicroKernelName();

/// Makes gemmInDouble run the named micro-kernel from now on, so tests and benchmarks can check each
/// one on a CPU that has them all; false (and no change) when the name is unknown or the CPU lacks it.
bool useGemmMicroKernel(std::string_view name);

} // namespace portolan::runtime::kernels
