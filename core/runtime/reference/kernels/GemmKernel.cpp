// gemmInDouble, laid out as the GotoBLAS/BLIS papers describe: the product is cut into tasks of
// kRowBlock × kColBlock elements of C (the unit of parallelism); each task walks K in steps of kDepth,
// packs its slice of B into kPanelCols-wide panels and its slice of A into kPanelRows-tall panels (as
// doubles, zero-padded), and runs the micro-kernel on every panel pair with the B panel held in L1 and
// A streamed from L2. C's task block is summed in double across all of K and then handed to the sink.
#include "runtime/reference/kernels/GemmKernel.h"

#include "support/ParallelFor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <immintrin.h>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

namespace portolan::runtime::kernels {

namespace {

constexpr std::int64_t kPanelRows = 8;   // micro-kernel rows: one broadcast of A each
constexpr std::int64_t kPanelCols = 16;  // micro-kernel columns: two 512-bit vectors of doubles
constexpr std::int64_t kDepth = 256;     // K per packed block: a B panel is 32 KiB, an L1's worth
constexpr std::int64_t kRowBlock = 128;  // A's packed block is 256 KiB, held in L2
constexpr std::int64_t kColBlock = 256;  // C's task block is 256 KiB
static_assert(kRowBlock % kPanelRows == 0 && kColBlock % kPanelCols == 0);

/// c[r·ldc + j] += Σ_k ap[k·8 + r] · bp[k·16 + j] for the 8 × 16 tile at c.
using MicroKernel = void (*)(const double *ap, const double *bp, std::int64_t depth, double *c, std::int64_t ldc);

__attribute__((target("avx512f"))) void microAvx512(const double *ap, const double *bp, std::int64_t depth,
                                                    double *c, std::int64_t ldc)
{
    __m512d sum[kPanelRows][2];
#pragma GCC unroll 8
    for (int r = 0; r < kPanelRows; ++r) {
        sum[r][0] = _mm512_loadu_pd(c + r * ldc);
        sum[r][1] = _mm512_loadu_pd(c + r * ldc + 8);
    }
    for (std::int64_t k = 0; k < depth; ++k, ap += kPanelRows, bp += kPanelCols) {
        const __m512d b0 = _mm512_loadu_pd(bp), b1 = _mm512_loadu_pd(bp + 8);
#pragma GCC unroll 8
        for (int r = 0; r < kPanelRows; ++r) {
            const __m512d a = _mm512_set1_pd(ap[r]);
            sum[r][0] = _mm512_fmadd_pd(a, b0, sum[r][0]);
            sum[r][1] = _mm512_fmadd_pd(a, b1, sum[r][1]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kPanelRows; ++r) {
        _mm512_storeu_pd(c + r * ldc, sum[r][0]);
        _mm512_storeu_pd(c + r * ldc + 8, sum[r][1]);
    }
}

/// AVX2 has 16 vector registers: the 8 × 16 tile goes as four 4 × 8 quarters of 8 accumulators each.
__attribute__((target("avx2,fma"))) void microAvx2(const double *ap, const double *bp, std::int64_t depth,
                                                   double *c, std::int64_t ldc)
{
    for (int rows = 0; rows < kPanelRows; rows += 4)
        for (int cols = 0; cols < kPanelCols; cols += 8) {
            double *tile = c + rows * ldc + cols;
            __m256d sum[4][2];
#pragma GCC unroll 4
            for (int r = 0; r < 4; ++r) {
                sum[r][0] = _mm256_loadu_pd(tile + r * ldc);
                sum[r][1] = _mm256_loadu_pd(tile + r * ldc + 4);
            }
            const double *a = ap + rows, *b = bp + cols;
            for (std::int64_t k = 0; k < depth; ++k, a += kPanelRows, b += kPanelCols) {
                const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
#pragma GCC unroll 4
                for (int r = 0; r < 4; ++r) {
                    const __m256d av = _mm256_broadcast_sd(a + r);
                    sum[r][0] = _mm256_fmadd_pd(av, b0, sum[r][0]);
                    sum[r][1] = _mm256_fmadd_pd(av, b1, sum[r][1]);
                }
            }
#pragma GCC unroll 4
            for (int r = 0; r < 4; ++r) {
                _mm256_storeu_pd(tile + r * ldc, sum[r][0]);
                _mm256_storeu_pd(tile + r * ldc + 4, sum[r][1]);
            }
        }
}

void microPlain(const double *ap, const double *bp, std::int64_t depth, double *c, std::int64_t ldc)
{
    for (std::int64_t k = 0; k < depth; ++k, ap += kPanelRows, bp += kPanelCols)
        for (int r = 0; r < kPanelRows; ++r)
            for (int j = 0; j < kPanelCols; ++j)
                c[r * ldc + j] += ap[r] * bp[j];
}

/// Ap[panel][k][r] = A(row0 + panel·8 + r, k0 + k) for the rows below `rows`, 0 past them.
template <typename T>
void packRowsPlain(StridedMatrix<T> a, std::int64_t row0, std::int64_t rows, std::int64_t k0, std::int64_t depth,
                   double *ap)
{
    for (std::int64_t p = 0; p * kPanelRows < rows; ++p, ap += depth * kPanelRows)
        for (std::int64_t r = 0; r < kPanelRows; ++r) {
            const std::int64_t i = p * kPanelRows + r;
            if (i >= rows) {
                for (std::int64_t k = 0; k < depth; ++k)
                    ap[k * kPanelRows + r] = 0;
                continue;
            }
            const T *src = a.data + (row0 + i) * a.rowStride + k0 * a.colStride;
            for (std::int64_t k = 0; k < depth; ++k)
                ap[k * kPanelRows + r] = static_cast<double>(src[k * a.colStride]);
        }
}

/// Bp[panel][k][j] = B(k0 + k, col0 + panel·16 + j) for the columns below `cols`, 0 past them. Walks B
/// row by row, so each of its rows is read once, front to back.
template <typename T>
void packColsPlain(StridedMatrix<T> b, std::int64_t k0, std::int64_t depth, std::int64_t col0, std::int64_t cols,
                   double *bp)
{
    const std::int64_t fullPanels = cols / kPanelCols, tail = cols % kPanelCols;
    for (std::int64_t k = 0; k < depth; ++k) {
        const T *src = b.data + (k0 + k) * b.rowStride + col0 * b.colStride;
        double *dst = bp + k * kPanelCols;
        for (std::int64_t p = 0; p < fullPanels; ++p, src += kPanelCols * b.colStride, dst += depth * kPanelCols)
            for (std::int64_t j = 0; j < kPanelCols; ++j)
                dst[j] = static_cast<double>(src[j * b.colStride]);
        if (tail) {
            for (std::int64_t j = 0; j < tail; ++j)
                dst[j] = static_cast<double>(src[j * b.colStride]);
            std::fill(dst + tail, dst + kPanelCols, 0.0);
        }
    }
}

/// The AVX-512 packers for float data: 16 floats widened by two conversions, and A's rows turned into
/// 8-row columns by an 8 × 8 transpose in registers. Strided or partial panels take the plain loops.
// GCC 12's intrinsics pass _mm512_undefined_pd() as the unused merge source, which -Wuninitialized flags.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

/// dst[c·dstStride + r] = src[r·srcStride + c] for r, c < 8: eight rows of eight floats widened and
/// turned into eight columns in registers.
__attribute__((target("avx512f"))) inline void transpose8x8(const float *src, std::int64_t srcStride, double *dst,
                                                             std::int64_t dstStride)
{
    const __m512i pairs0 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), pairs1 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i halves0 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11), halves1 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512d r[8], t[8], u[8];
    for (int i = 0; i < 8; ++i)
        r[i] = _mm512_cvtps_pd(_mm256_loadu_ps(src + i * srcStride));
    for (int i = 0; i < 8; i += 2) { // t[i] = rows i, i+1 interleaved by column pairs
        t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4)
        for (int h = 0; h < 2; ++h) { // u: four rows per column, two columns per vector
            u[i + h] = _mm512_permutex2var_pd(t[i + h], pairs0, t[i + h + 2]);
            u[i + h + 2] = _mm512_permutex2var_pd(t[i + h], pairs1, t[i + h + 2]);
        }
    for (int c = 0; c < 4; ++c) { // column c and c + 4 of all eight rows
        _mm512_storeu_pd(dst + c * dstStride, _mm512_permutex2var_pd(u[c], halves0, u[c + 4]));
        _mm512_storeu_pd(dst + (c + 4) * dstStride, _mm512_permutex2var_pd(u[c], halves1, u[c + 4]));
    }
}

/// The AVX-512 packers for float data: 16 floats widened by two conversions, and rows turned into
/// columns eight by eight (A's rows into its panels; a transposed B's columns into its panels).
/// Partial panels take the plain loops.
__attribute__((target("avx512f"))) void packRowsAvx512(StridedMatrix<float> a, std::int64_t row0, std::int64_t rows,
                                                       std::int64_t k0, std::int64_t depth, double *ap)
{
    if (a.colStride != 1) {
        packRowsPlain(a, row0, rows, k0, depth, ap);
        return;
    }
    const std::int64_t vectorDepth = depth - depth % 8;
    for (std::int64_t p = 0; p * kPanelRows < rows; ++p, ap += depth * kPanelRows) {
        if (rows - p * kPanelRows < kPanelRows) { // the last, partial panel
            packRowsPlain(a, row0 + p * kPanelRows, rows - p * kPanelRows, k0, depth, ap);
            break;
        }
        const float *src = a.data + (row0 + p * kPanelRows) * a.rowStride + k0;
        for (std::int64_t k = 0; k < vectorDepth; k += 8)
            transpose8x8(src + k, a.rowStride, ap + k * kPanelRows, kPanelRows);
        for (std::int64_t r = 0; r < kPanelRows; ++r)
            for (std::int64_t k = vectorDepth; k < depth; ++k)
                ap[k * kPanelRows + r] = static_cast<double>(src[r * a.rowStride + k]);
    }
}

/// B's panels from a B stored transposed (column j of B is row j of the data, as Gemm's transB gives).
__attribute__((target("avx512f"))) void packTransposedColsAvx512(StridedMatrix<float> b, std::int64_t k0,
                                                                 std::int64_t depth, std::int64_t col0,
                                                                 std::int64_t cols, double *bp)
{
    const std::int64_t vectorDepth = depth - depth % 8;
    for (std::int64_t p = 0; p * kPanelCols < cols; ++p, bp += depth * kPanelCols) {
        if (cols - p * kPanelCols < kPanelCols) { // the last, partial panel
            packColsPlain(b, k0, depth, col0 + p * kPanelCols, cols - p * kPanelCols, bp);
            break;
        }
        const float *src = b.data + (col0 + p * kPanelCols) * b.colStride + k0;
        for (std::int64_t k = 0; k < vectorDepth; k += 8)
            for (std::int64_t half = 0; half < kPanelCols; half += 8)
                transpose8x8(src + half * b.colStride + k, b.colStride, bp + k * kPanelCols + half, kPanelCols);
        for (std::int64_t j = 0; j < kPanelCols; ++j)
            for (std::int64_t k = vectorDepth; k < depth; ++k)
                bp[k * kPanelCols + j] = static_cast<double>(src[j * b.colStride + k]);
    }
}

__attribute__((target("avx512f"))) void packColsAvx512(StridedMatrix<float> b, std::int64_t k0, std::int64_t depth,
                                                       std::int64_t col0, std::int64_t cols, double *bp)
{
    if (b.colStride != 1) {
        if (b.rowStride == 1)
            packTransposedColsAvx512(b, k0, depth, col0, cols, bp);
        else
            packColsPlain(b, k0, depth, col0, cols, bp);
        return;
    }
    const std::int64_t fullPanels = cols / kPanelCols, tail = cols % kPanelCols;
    const __mmask16 tailMask = static_cast<__mmask16>((1u << tail) - 1);
    for (std::int64_t k = 0; k < depth; ++k) {
        const float *src = b.data + (k0 + k) * b.rowStride + col0;
        double *dst = bp + k * kPanelCols;
        for (std::int64_t p = 0; p < fullPanels; ++p, src += kPanelCols, dst += depth * kPanelCols) {
            const __m512 v = _mm512_loadu_ps(src);
            _mm512_storeu_pd(dst, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
            _mm512_storeu_pd(dst + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
        }
        if (tail) { // zero past the end, read nothing past it
            const __m512 v = _mm512_maskz_loadu_ps(tailMask, src);
            _mm512_storeu_pd(dst, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
            _mm512_storeu_pd(dst + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
        }
    }
}

#pragma GCC diagnostic pop

/// The packers a micro-kernel family uses for T.
template <typename T>
struct Packers {
    void (*rows)(StridedMatrix<T>, std::int64_t, std::int64_t, std::int64_t, std::int64_t, double *) = packRowsPlain<T>;
    void (*cols)(StridedMatrix<T>, std::int64_t, std::int64_t, std::int64_t, std::int64_t, double *) = packColsPlain<T>;
};

struct NamedKernel {
    std::string_view name;
    MicroKernel kernel;
    bool (*supported)();
    Packers<float> packFloat;
    Packers<double> packDouble;
};

const NamedKernel kKernels[] = {
    {"avx512", microAvx512, [] { return __builtin_cpu_supports("avx512f") != 0; }, {packRowsAvx512, packColsAvx512}, {}},
    {"avx2", microAvx2, [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }, {}, {}},
    {"plain", microPlain, [] { return true; }, {}, {}},
};

const NamedKernel *bestKernel()
{
    __builtin_cpu_init();
    for (const NamedKernel &k : kKernels)
        if (k.supported())
            return &k;
    return &kKernels[std::size(kKernels) - 1];
}

std::atomic<const NamedKernel *> &activeKernel()
{
    static std::atomic<const NamedKernel *> active{bestKernel()};
    return active;
}

template <typename T>
const Packers<T> &packersOf(const NamedKernel &k)
{
    if constexpr (std::is_same_v<T, float>)
        return k.packFloat;
    else
        return k.packDouble;
}

/// One core's packing and sum buffers, kept between products in a pool (a product's chunks may run on
/// any of the pool's threads): fresh ones would cost page faults and zeroing on every call.
struct Scratch {
    std::vector<double> rows, cols, sums;
};

class ScratchPool {
public:
    std::unique_ptr<Scratch> take()
    {
        const std::lock_guard lock(mutex_);
        if (free_.empty())
            return std::make_unique<Scratch>();
        auto s = std::move(free_.back());
        free_.pop_back();
        return s;
    }
    void give(std::unique_ptr<Scratch> s)
    {
        const std::lock_guard lock(mutex_);
        free_.push_back(std::move(s));
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<Scratch>> free_;
};

ScratchPool &scratchPool()
{
    static ScratchPool pool;
    return pool;
}

/// Grows v to at least n elements; what it held is not kept.
void reserveAtLeast(std::vector<double> &v, std::int64_t n)
{
    if (static_cast<std::int64_t>(v.size()) < n)
        v.resize(static_cast<std::size_t>(n));
}

std::int64_t roundUp(std::int64_t v, std::int64_t step) { return (v + step - 1) / step * step; }

/// C cut into blocks of rows × cols: at most kRowBlock × kColBlock, as near equal as the panel sizes
/// allow (197 rows are 104 + 93, not 128 + 69), and, when there are few blocks, a number of them the
/// cores divide evenly.
struct Tiling {
    std::int64_t rows = 0, cols = 0, rowBlocks = 0, colBlocks = 0;
};

Tiling tile(std::int64_t M, std::int64_t N, std::int64_t workers)
{
    const auto even = [](std::int64_t extent, std::int64_t blocks, std::int64_t step) {
        return roundUp((extent + blocks - 1) / blocks, step);
    };
    Tiling t;
    t.rows = even(M, (M + kRowBlock - 1) / kRowBlock, kPanelRows);
    t.rowBlocks = (M + t.rows - 1) / t.rows;
    std::int64_t colBlocks = (N + kColBlock - 1) / kColBlock;
    t.cols = even(N, colBlocks, kPanelCols);
    for (std::int64_t more = colBlocks + 1; (t.rowBlocks * ((N + t.cols - 1) / t.cols)) % workers != 0 &&
                                            t.rowBlocks * more <= 4 * workers && more * kPanelCols <= N;
         ++more)
        t.cols = even(N, more, kPanelCols);
    t.colBlocks = (N + t.cols - 1) / t.cols;
    return t;
}

} // namespace

template <typename T>
void gemmInDouble(StridedMatrix<T> a, StridedMatrix<T> b, std::int64_t M, std::int64_t N, std::int64_t K,
                  const SumRowSink &sink, bool parallel)
{
    if (M <= 0 || N <= 0)
        return;
    const NamedKernel &active = *activeKernel().load();
    const MicroKernel micro = active.kernel;
    const Packers<T> &pack = packersOf<T>(active);
    const bool worthIt = parallel && M * N * std::max<std::int64_t>(K, 1) > (std::int64_t(1) << 22);
    const Tiling tiling = tile(M, N, worthIt ? static_cast<std::int64_t>(support::workerCount()) : 1);
    std::atomic<std::int64_t> nextTask{0};
    support::parallelFor(worthIt ? support::workerCount() : 1, worthIt, [&](std::int64_t, std::int64_t) {
        // sized for this product's blocks, so a small product allocates little
        const std::int64_t depthMax = std::clamp<std::int64_t>(K, 1, kDepth);
        std::unique_ptr<Scratch> scratch = scratchPool().take();
        reserveAtLeast(scratch->rows, tiling.rows * depthMax);
        reserveAtLeast(scratch->cols, tiling.cols * depthMax);
        reserveAtLeast(scratch->sums, tiling.rows * tiling.cols);
        double *ap = scratch->rows.data(), *bp = scratch->cols.data(), *c = scratch->sums.data();
        // tasks are claimed one at a time, so a core that finishes early takes the next
        for (std::int64_t task; (task = nextTask.fetch_add(1)) < tiling.rowBlocks * tiling.colBlocks;) {
            // column-major over blocks: the cores work on one B block at once, read from memory once
            const std::int64_t row0 = task % tiling.rowBlocks * tiling.rows, col0 = task / tiling.rowBlocks * tiling.cols;
            const std::int64_t rows = std::min(tiling.rows, M - row0), cols = std::min(tiling.cols, N - col0);
            const std::int64_t rowPanels = roundUp(rows, kPanelRows) / kPanelRows;
            const std::int64_t colPanels = roundUp(cols, kPanelCols) / kPanelCols;
            const std::int64_t ldc = colPanels * kPanelCols;
            std::fill(c, c + rowPanels * kPanelRows * ldc, 0.0);
            for (std::int64_t k0 = 0; k0 < K; k0 += kDepth) {
                const std::int64_t depth = std::min(kDepth, K - k0);
                pack.cols(b, k0, depth, col0, cols, bp);
                pack.rows(a, row0, rows, k0, depth, ap);
                for (std::int64_t cp = 0; cp < colPanels; ++cp) // B's panel stays in L1 across A's panels
                    for (std::int64_t rp = 0; rp < rowPanels; ++rp)
                        micro(ap + rp * depth * kPanelRows, bp + cp * depth * kPanelCols, depth,
                              c + rp * kPanelRows * ldc + cp * kPanelCols, ldc);
            }
            for (std::int64_t r = 0; r < rows; ++r)
                sink(row0 + r, col0, c + r * ldc, cols);
        }
        scratchPool().give(std::move(scratch));
    });
}

template void gemmInDouble<float>(StridedMatrix<float>, StridedMatrix<float>, std::int64_t, std::int64_t,
                                  std::int64_t, const SumRowSink &, bool);
template void gemmInDouble<double>(StridedMatrix<double>, StridedMatrix<double>, std::int64_t, std::int64_t,
                                   std::int64_t, const SumRowSink &, bool);

const char *gemmMicroKernelName() { return activeKernel().load()->name.data(); }

bool useGemmMicroKernel(std::string_view name)
{
    for (const NamedKernel &k : kKernels)
        if (k.name == name && k.supported()) {
            activeKernel().store(&k);
            return true;
        }
    return false;
}

} // namespace portolan::runtime::kernels
