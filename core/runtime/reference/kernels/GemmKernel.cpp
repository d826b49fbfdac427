// gemmTile4: 4 rows × 8 columns of double accumulators per step of K, which GCC keeps in registers
// (8 ymm with AVX2); target_clones picks the AVX2 build at load time where the CPU has it.
#include "runtime/reference/kernels/GemmKernel.h"

namespace portolan::runtime::kernels {

__attribute__((target_clones("avx2", "default")))
void gemmTile4(const float *a, std::int64_t lda, const float *b, std::int64_t ldb, std::int64_t K,
               std::int64_t count, double (*acc)[256])
{
    constexpr std::int64_t W = 8;
    const std::int64_t strips = count / W * W;
    for (std::int64_t j0 = 0; j0 < strips; j0 += W) {
        double c[4][W] = {};
        for (std::int64_t k = 0; k < K; ++k) {
            const float *bk = b + k * ldb + j0;
            double bv[W];
            for (std::int64_t j = 0; j < W; ++j)
                bv[j] = static_cast<double>(bk[j]);
            for (std::int64_t r = 0; r < 4; ++r) {
                const double av = static_cast<double>(a[r * lda + k]);
                for (std::int64_t j = 0; j < W; ++j)
                    c[r][j] += av * bv[j];
            }
        }
        for (std::int64_t r = 0; r < 4; ++r)
            for (std::int64_t j = 0; j < W; ++j)
                acc[r][j0 + j] = c[r][j];
    }
    for (std::int64_t r = 0; r < 4; ++r) // the last columns, fewer than W
        for (std::int64_t j = strips; j < count; ++j) {
            double sum = 0;
            for (std::int64_t k = 0; k < K; ++k)
                sum += static_cast<double>(a[r * lda + k]) * static_cast<double>(b[k * ldb + j]);
            acc[r][j] = sum;
        }
}

} // namespace portolan::runtime::kernels
