// The float micro-kernel under the reference GEMMs: float inputs, double sums (the oracle's accuracy),
// register-blocked so the sums stay in registers across all of K; built for AVX2 and a plain fallback.
#pragma once

#include <cstdint>

namespace portolan::runtime::kernels {

/// acc[r][j] = Σ_k a[r·lda + k] · b[k·ldb + j] for r < 4, j < count (count ≤ 256); acc is overwritten.
void gemmTile4(const float *a, std::int64_t lda, const float *b, std::int64_t ldb, std::int64_t K,
               std::int64_t count, double (*acc)[256]);

} // namespace portolan::runtime::kernels
