// Launch arithmetic of the CUDA kernels, in plain C++ so that it is unit-tested on machines without
// a GPU: grid sizes, broadcast plans (the index walk of a binary op), and how rows map onto warps.
// C++17: nvcc reads it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#if defined(__CUDACC__)
#define PORTOLAN_HOST_DEVICE __host__ __device__
#else
#define PORTOLAN_HOST_DEVICE
#endif

namespace portolan::runtime::cuda {

inline constexpr int kMaxRank = 6;
inline constexpr std::uint32_t kThreadsPerBlock = 256;
inline constexpr std::uint32_t kWarpSize = 32;

struct GridShape {
    std::uint32_t blocks = 0;
    std::uint32_t threads = 0;
};

/// A grid-stride launch over `items` items: enough blocks of kThreadsPerBlock threads to give each
/// of `multiprocessors` SMs eight resident blocks (latency hiding), never more blocks than the items
/// need; at least one block so that a launch over nothing stays valid.
GridShape gridFor(std::int64_t items, int multiprocessors);

/// How many floats one thread moves per access: 4 (a 16-byte vector load) when every pointer is
/// 16-byte aligned and the count is a multiple of 4, else 1.
int vectorWidth(std::int64_t count, std::initializer_list<const void *> pointers);

/// A binary op walked over its output: unit dims dropped, and neighbouring dims merged where both
/// operands are either contiguous across them or broadcast along both, so that the common cases
/// (same shapes, a bias along the last dim, a per-channel scale) are rank 1 or 2.
struct BroadcastPlan {
    int rank = 0;
    std::int64_t count = 0;              ///< output elements
    std::int64_t dims[kMaxRank] = {};    ///< outermost first
    std::int64_t strideA[kMaxRank] = {}; ///< element strides; 0 along a dim A is broadcast on
    std::int64_t strideB[kMaxRank] = {};

    /// The elements of A and B that output element `i` reads.
    PORTOLAN_HOST_DEVICE void offsets(std::int64_t i, std::int64_t &a, std::int64_t &b) const
    {
        a = 0;
        b = 0;
        for (int d = rank - 1; d >= 0; --d) {
            const std::int64_t q = i / dims[d];
            const std::int64_t r = i - q * dims[d];
            a += r * strideA[d];
            b += r * strideB[d];
            i = q;
        }
    }
};

/// Several operands walked over one output: the same merging as BroadcastPlan's, each operand with
/// its own strides.
struct MultiBroadcast {
    static constexpr int kMaxOperands = 8;
    int rank = 0;
    std::int64_t count = 0;
    std::int64_t dims[kMaxRank] = {};
    std::int64_t strides[kMaxOperands][kMaxRank] = {};
};

/// The walk of output `out` for `operands` (numpy broadcasting, right-aligned); nullopt when one
/// does not broadcast to `out`, there are more than kMaxOperands, or more than kMaxRank dims remain.
std::optional<MultiBroadcast> planMultiBroadcast(const std::vector<std::int64_t> &out,
                                                 const std::vector<std::vector<std::int64_t>> &operands);

/// The plan for output `out` from operands `a` and `b` (numpy broadcasting, right-aligned); nullopt
/// when they do not broadcast to `out` or need more than kMaxRank dims after merging.
std::optional<BroadcastPlan> planBroadcast(const std::vector<std::int64_t> &out, const std::vector<std::int64_t> &a,
                                           const std::vector<std::int64_t> &b);

/// A copy between two strided views of the same dims (Transpose, Slice, Split, Concat): element i of
/// the walk reads src[srcBase + a] and writes dst[dstBase + b], (a, b) = plan.offsets(i), strideA
/// being the source's strides and strideB the destination's.
struct StridedCopy {
    BroadcastPlan plan;
    std::int64_t srcBase = 0, dstBase = 0;
};

/// The copy of `dims` from `srcStrides` to `dstStrides` (elements), unit dims dropped and neighbours
/// merged where both sides run contiguously across them; nullopt past kMaxRank dims after merging.
std::optional<StridedCopy> planStridedCopy(const std::vector<std::int64_t> &dims, const std::vector<std::int64_t> &srcStrides,
                                           const std::vector<std::int64_t> &dstStrides, std::int64_t srcBase = 0,
                                           std::int64_t dstBase = 0);

/// A row kernel (softmax, layer norm): rows up to 1024 wide take one warp each, eight rows to a
/// block; wider rows take a block of kThreadsPerBlock threads each.
struct RowLaunch {
    std::uint32_t blocks = 0;
    std::uint32_t threads = 0;
    std::uint32_t rowsPerBlock = 0;
    bool warpPerRow = false;
};
RowLaunch rowLaunch(std::int64_t rows, std::int64_t width);

/// The tiled attention kernel's shared memory (kernels/Attention.cu): per block 64 query rows, and
/// per step 64 keys, for a head dim `d` (a multiple of 16, at most 128) of 16-bit storage. Q, K and
/// V tiles in storage type, the scores S and the output accumulators O in fp32, the probabilities P
/// in storage type, then each row's running max and sum. Rows are padded (8 halves, 4
/// floats) against bank conflicts; every region starts 128-byte aligned, and so every 16×16 tile a
/// tensor-core load or store touches is 32-byte aligned, as WMMA requires.
struct TiledAttentionLayout {
    static constexpr int kRows = 64, kKeys = 64, kWarps = 4, kMaxHeadDim = 128;
    static_assert(kKeys == kRows, "the kernel loads K and V tiles with the Q tile's loader (kRows rows)");
    int d = 0;
    int ldQ = 0, ldK = 0, ldV = 0, ldS = 0, ldP = 0, ldO = 0; ///< leading dims, in elements
    std::size_t q = 0, k = 0, v = 0, s = 0, p = 0, o = 0, stats = 0; ///< byte offsets
    std::size_t bytes = 0;

    static PORTOLAN_HOST_DEVICE TiledAttentionLayout of(int d)
    {
        TiledAttentionLayout l;
        l.d = d;
        l.ldQ = l.ldK = l.ldV = d + 8;
        l.ldS = kKeys + 4;
        l.ldP = kKeys + 8;
        l.ldO = d + 4;
        l.q = 0;
        l.k = after(l.q, std::size_t(kRows) * l.ldQ * 2);
        l.v = after(l.k, std::size_t(kKeys) * l.ldK * 2);
        l.s = after(l.v, std::size_t(kKeys) * l.ldV * 2);
        l.p = after(l.s, std::size_t(kRows) * l.ldS * 4);
        l.o = after(l.p, std::size_t(kRows) * l.ldP * 2);
        l.stats = after(l.o, std::size_t(kRows) * l.ldO * 4);
        l.bytes = after(l.stats, std::size_t(2) * kRows * 4);
        return l;
    }
    /// Where the region after one of `bytes` at `start` begins.
    static PORTOLAN_HOST_DEVICE std::size_t after(std::size_t start, std::size_t bytes) { return (start + bytes + 127) / 128 * 128; }
};

} // namespace portolan::runtime::cuda
