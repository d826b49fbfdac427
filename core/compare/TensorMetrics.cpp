// Tensor metrics in double: one pass for the sums and maxima, with a histogram (or, for small
// tensors, a selection) for the median and p99.
#include "compare/TensorMetrics.h"
#include "compare/ErrorHistogram.h"
#include "compare/RankStatistics.h"

#include "ir/Type.h"
#include "runtime/Dispatch.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace portolan::compare {

namespace {

using detail::binMiddle;
using detail::binOf;
using detail::Histogram;
using detail::kHistogramBins;
using detail::kPastFloats;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Up to this many elements the median and p99 are exact (a selection over the errors); past it
/// they come from a histogram of 1/16-octave bins (within 6.25%), so large tensors cost one pass.
constexpr std::int64_t kExactQuantileLimit = 1 << 12;

/// Large float tensors are taken in blocks of 1024, each in groups of eight lanes.
constexpr int kLanes = 8;
constexpr std::int64_t kBlock = 1024;

/// From 16k elements on, the median and p99 come from a sample of 8192 to 16383 elements: one group
/// of eight in every `every` (2, 4, … up to 128 from a million elements on), at an offset that
/// changes from block to block so that no period in the data lines up with it. Each bin is within
/// 6.25% anyway, so the sample costs little accuracy (the p99's rank moves by about 1%) and saves most
/// of the histogram's scatter.
std::int64_t sampleEvery(std::int64_t n)
{
    std::int64_t every = 1;
    while (every < kBlock / kLanes && n / (2 * every) >= (1 << 13))
        every *= 2;
    return every;
}

/// Which group of eight among each `every` groups of block `block` the sample takes: the top bits of
/// a Fibonacci hash of the block's number.
std::int64_t sampledGroup(std::int64_t block, std::int64_t every)
{
    return static_cast<std::int64_t>((static_cast<std::uint32_t>(block) * 0x9E3779B1u) >> 25) & (every - 1);
}
bool inSample(std::int64_t i, std::int64_t every)
{
    return (i / kLanes) % every == sampledGroup(i / kBlock, every);
}


struct Partial {
    double sumAbs = 0, sumRel = 0, sumSquares = 0, dot = 0, refSquares = 0, actSquares = 0;
    double maxAbs = 0, maxRel = 0, neededAtol = 0, neededRtol = 0, worst = -1, scale = 0;
    std::int64_t worstIndex = -1, referenceNans = 0, referenceInfs = 0, actualNans = 0, actualInfs = 0;
    std::int64_t outOfTolerance = 0;
    bool infiniteError = false; // a NaN against a number, or an infinity against anything else: fails at any quantile
    std::vector<float> absErrors, relErrors; // small tensors: exact quantiles
    Histogram absHistogram, relHistogram;    // large ones
    std::uint64_t histogrammed = 0;          // the elements counted in them (a sample, see sampleEvery)

    void merge(Partial &&o)
    {
        sumAbs += o.sumAbs;
        sumRel += o.sumRel;
        sumSquares += o.sumSquares;
        dot += o.dot;
        refSquares += o.refSquares;
        actSquares += o.actSquares;
        maxAbs = std::max(maxAbs, o.maxAbs);
        scale = std::max(scale, o.scale);
        maxRel = std::max(maxRel, o.maxRel);
        neededAtol = std::max(neededAtol, o.neededAtol);
        neededRtol = std::max(neededRtol, o.neededRtol);
        if (o.worst > worst) { // chunks merge in order: ties keep the earlier element
            worst = o.worst;
            worstIndex = o.worstIndex;
        }
        referenceNans += o.referenceNans;
        referenceInfs += o.referenceInfs;
        actualNans += o.actualNans;
        actualInfs += o.actualInfs;
        outOfTolerance += o.outOfTolerance;
        infiniteError = infiniteError || o.infiniteError;
        histogrammed += o.histogrammed;
        absErrors.insert(absErrors.end(), o.absErrors.begin(), o.absErrors.end());
        relErrors.insert(relErrors.end(), o.relErrors.begin(), o.relErrors.end());
        absHistogram.merge(o.absHistogram);
        relHistogram.merge(o.relHistogram);
    }

    void finish(TensorMetrics &m, std::int64_t n, double quantile)
    {
        m.maxAbs = maxAbs;
        m.maxRel = maxRel;
        m.referenceScale = scale;
        m.neededAtol = neededAtol;
        m.neededRtol = neededRtol;
        m.worstIndex = worstIndex;
        m.referenceNans = referenceNans;
        m.referenceInfs = referenceInfs;
        m.actualNans = actualNans;
        m.actualInfs = actualInfs;
        m.outOfTolerance = outOfTolerance;
        // at most (1 − quantile) of the elements out; the small slack keeps 0.99 of 100 at one, not zero
        const double allowed = std::floor((1 - quantile) * static_cast<double>(n) + 1e-6);
        m.passed = !infiniteError && static_cast<double>(outOfTolerance) <= allowed;
        if (n > 0) {
            m.meanAbs = sumAbs / static_cast<double>(n);
            m.meanRel = sumRel / static_cast<double>(n);
            m.rmse = std::sqrt(sumSquares / static_cast<double>(n));
            if (n <= kExactQuantileLimit) {
                std::tie(m.medianAbs, m.p99Abs) = medianAndP99(absErrors);
                std::tie(m.medianRel, m.p99Rel) = medianAndP99(relErrors);
            } else {
                const std::uint64_t total = histogrammed;
                m.medianAbs = absHistogram.quantile(0.5, total, maxAbs);
                m.p99Abs = absHistogram.quantile(0.99, total, maxAbs);
                m.medianRel = relHistogram.quantile(0.5, total, maxRel);
                m.p99Rel = relHistogram.quantile(0.99, total, maxRel);
            }
        }
        if (refSquares == 0 && actSquares == 0)
            m.cosine = 1;
        else if (refSquares == 0 || actSquares == 0)
            m.cosine = 0;
        else
            m.cosine = dot / std::sqrt(refSquares * actSquares);
        m.snrDb = sumSquares == 0 ? kInf : 10 * std::log10(refSquares / sumSquares);
        m.psnrDb = sumSquares == 0 ? kInf : 20 * std::log10(scale / m.rmse);
    }
};

/// Elements [0, count) of ref and act, which are elements [first, first + count) of the tensors.
template <typename T>
void accumulate(const T *ref, const T *act, std::int64_t first, std::int64_t count, const Tolerance &tolerance, double epsilon,
                double maskFloor, bool keepErrors, std::int64_t every, Partial &p)
{
    if (keepErrors) {
        p.absErrors.reserve(static_cast<std::size_t>(count));
        p.relErrors.reserve(static_cast<std::size_t>(count));
    }
    for (std::int64_t k = 0; k < count; ++k) {
        const std::int64_t i = first + k;
        const double x = ref[k], y = act[k];
        const bool xNan = std::isnan(x), yNan = std::isnan(y);
        double e;
        if (xNan || yNan) {
            p.referenceNans += xNan;
            p.actualNans += yNan;
            e = xNan && yNan ? 0 : kInf;
        } else {
            p.referenceInfs += std::isinf(x);
            p.actualInfs += std::isinf(y);
            e = x == y ? 0 : std::fabs(y - x); // equal infinities included
        }
        // a NaN reference counts as 0 in the bound and the ratio: NaN against NaN is an exact match
        const double ax = xNan ? 0 : std::fabs(x);
        const double r = e / std::max(ax, epsilon);
        if (e > p.worst) { // a NaN on one side only is an infinite error: the first such is the worst
            p.worst = e;
            p.worstIndex = i;
        }
        if (!(e <= tolerance.atol || e <= tolerance.rtol * ax))
            ++p.outOfTolerance;
        if (std::isfinite(e)) {
            p.sumAbs += e;
            p.sumRel += r;
            p.sumSquares += e * e;
            if (e > tolerance.rtol * ax)
                p.neededAtol = std::max(p.neededAtol, e);
            if (e > tolerance.atol)
                p.neededRtol = std::max(p.neededRtol, ax > 0 ? e / ax : kInf);
        } else {
            p.neededAtol = p.neededRtol = kInf;
            p.infiniteError = true;
        }
        if (std::isfinite(x) && ax < maskFloor)
            p.scale = std::max(p.scale, ax);
        if (std::isfinite(x) && std::isfinite(y)) {
            p.dot += x * y;
            p.refSquares += x * x;
            p.actSquares += y * y;
        }
        p.maxAbs = std::max(p.maxAbs, e);
        p.maxRel = std::max(p.maxRel, r);
        if (keepErrors) {
            p.absErrors.push_back(static_cast<float>(e));
            p.relErrors.push_back(static_cast<float>(r));
        } else if (every > 0 && inSample(i, every)) {
            p.absHistogram.add(e);
            p.relHistogram.add(r);
            ++p.histogrammed;
        }
    }
}

/// The sums and maxima of one all-finite block in eight lanes (element i goes to lane i mod 8), as
/// GCC vectors, so each group of eight is a handful of vector instructions on whatever the CPU has.
/// Sums differ from a sequential order only in their last bits, and relative errors, taken as
/// e · (1 / max(|x|, ε)) to spend one division on both of their uses, by at most an ulp; verdicts
/// and the first worst element do not differ.
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Indices = std::int64_t __attribute__((vector_size(kLanes * sizeof(std::int64_t))));

using Bins = std::uint32_t __attribute__((vector_size(kLanes * sizeof(std::uint32_t))));

struct BlockSums {
    Doubles sumAbs{}, sumRel{}, sumSquares{}, dot{}, refSquares{}, actSquares{}, maxAbs{}, maxRel{}, scale{};
    Doubles neededAtol{}, neededRtol{};
    Doubles failing{};      // elements over both atol and rtol·|x| (counts, exact in a double)
    Doubles tinyOverAtol{}; // max e − atol where |x| < ε: when positive, neededRtol is e/|x| there, not e·(1/ε)
    Bins absLow{}, absHigh{}, relLow{}, relHigh{}; // the range of non-zero bins the block touched (the lows less one)
};

BlockSums emptyLanes()
{
    BlockSums lanes;
    lanes.absLow += kHistogramBins;
    lanes.relLow += kHistogramBins;
    return lanes;
}

/// Sums one all-finite block into `b` and writes histogram bins (binOf of the errors as floats; bins
/// from 4080 up are the errors past the float range) of the block's sampled groups (`group` of every
/// `every`; all of them when `every` is 1, none when it is 0, else the block is whole), densely. False, with `b` undefined, when the block holds a NaN or an infinity: the caller
/// then takes the general loop. (One function with lambdas, not helpers: GCC lowers vector code for
/// the target of the function it is written in, so helpers would lose the clone's vector width.)
__attribute__((target_clones("avx512f", "avx2", "default"))) bool
sumFiniteBlock(const float *ref, const float *act, std::int64_t count, double atol, double rtol, double epsilon,
               double maskFloor, std::int64_t every, std::int64_t group, BlockSums &b, std::uint32_t *absBins, std::uint32_t *relBins)
{
    BlockSums lanes = emptyLanes(); // a local: the bin stores cannot alias it, so the lanes stay in registers
    const Doubles zero{}, one = zero + 1, atols = zero + atol, rtols = zero + rtol, epsilons = zero + epsilon;
    const Doubles maskFloors = zero + maskFloor;
    const Indices magnitudeBits = Indices{} + std::numeric_limits<std::int64_t>::max(); // all but the sign
    struct Group {
        Doubles x, y, e, ax, q, r; // q = 1 / max(|x|, ε)
    };
    const auto load = [&](std::int64_t i0, std::int64_t n) __attribute__((always_inline)) {
        Floats xf{}, yf{}; // a partial group is padded with zeros, which add nothing
        std::memcpy(&xf, ref + i0, static_cast<std::size_t>(n) * sizeof(float));
        std::memcpy(&yf, act + i0, static_cast<std::size_t>(n) * sizeof(float));
        Group g;
        g.x = __builtin_convertvector(xf, Doubles);
        g.y = __builtin_convertvector(yf, Doubles);
        g.e = (Doubles)((Indices)(g.y - g.x) & magnitudeBits);
        g.ax = (Doubles)((Indices)g.x & magnitudeBits);
        g.q = one / (g.ax < epsilons ? epsilons : g.ax);
        g.r = g.e * g.q;
        return g;
    };
    const auto bin = [&](const Group &g, std::uint32_t *absOut, std::uint32_t *relOut, std::int64_t n)
                         __attribute__((always_inline)) {
        const Bins absBin = (Bins)__builtin_convertvector(g.e, Floats) >> 19;
        const Bins relBin = (Bins)__builtin_convertvector(g.r, Floats) >> 19;
        // the lowest non-zero bin, less one: bin 0 wraps around to the largest
        const Bins absBelow = absBin - 1, relBelow = relBin - 1;
        lanes.absLow = absBelow < lanes.absLow ? absBelow : lanes.absLow;
        lanes.absHigh = absBin > lanes.absHigh ? absBin : lanes.absHigh;
        lanes.relLow = relBelow < lanes.relLow ? relBelow : lanes.relLow;
        lanes.relHigh = relBin > lanes.relHigh ? relBin : lanes.relHigh;
        std::memcpy(absOut, &absBin, static_cast<std::size_t>(n) * sizeof(std::uint32_t));
        std::memcpy(relOut, &relBin, static_cast<std::size_t>(n) * sizeof(std::uint32_t));
    };
    const auto sum = [&](const Group &g) __attribute__((always_inline)) {
        lanes.sumAbs += g.e;
        lanes.sumRel += g.r;
        lanes.sumSquares += g.e * g.e;
        lanes.dot += g.x * g.y;
        lanes.refSquares += g.x * g.x;
        lanes.actSquares += g.y * g.y;
        lanes.maxAbs = lanes.maxAbs < g.e ? g.e : lanes.maxAbs;
        lanes.maxRel = lanes.maxRel < g.r ? g.r : lanes.maxRel;
        const Doubles unmasked = g.ax < maskFloors ? g.ax : zero;
        lanes.scale = lanes.scale < unmasked ? unmasked : lanes.scale;
        // masks stay masks, used only to select (turning them into integer lanes needs AVX-512DQ, and
        // GCC writes scalar code without it): an element fails over both atol and rtol·|x| (for
        // finite values, the negation of e <= atol || e <= rtol·|x|)
        const Doubles relativeBound = rtols * g.ax;
        const Doubles bound = atols < relativeBound ? relativeBound : atols;
        lanes.failing += g.e > bound ? one : zero;
        const Doubles atolNeeded = g.e > relativeBound ? g.e : zero;
        lanes.neededAtol = lanes.neededAtol < atolNeeded ? atolNeeded : lanes.neededAtol;
        const Doubles overAtol = g.e - atols;
        const Doubles tinyOverAtol = g.ax < epsilons ? overAtol : zero;
        lanes.tinyOverAtol = lanes.tinyOverAtol < tinyOverAtol ? tinyOverAtol : lanes.tinyOverAtol;
        const Doubles rtolNeeded = g.e > atols ? g.e * g.q : zero;
        lanes.neededRtol = lanes.neededRtol < rtolNeeded ? rtolNeeded : lanes.neededRtol;
    };
    const bool binAll = every == 1;
    const std::int64_t whole = count - count % kLanes;
    for (std::int64_t i0 = 0; i0 < whole; i0 += kLanes) {
        const Group g = load(i0, kLanes);
        sum(g);
        if (binAll)
            bin(g, absBins + i0, relBins + i0, kLanes);
    }
    if (const std::int64_t rest = count - whole; rest > 0) {
        const Group g = load(whole, rest);
        sum(g);
        if (binAll)
            bin(g, absBins + whole, relBins + whole, rest);
    }
    if (every > 1)
        for (std::int64_t k = 0; k < kBlock / (every * kLanes); ++k)
            bin(load((every * k + group) * kLanes, kLanes), absBins + k * kLanes, relBins + k * kLanes, kLanes);
    b = lanes;
    // a NaN or an infinity on either side leaves its lane's sum of squares non-finite (float squares
    // cannot overflow a double)
    for (int l = 0; l < kLanes; ++l)
        if (!std::isfinite(lanes.refSquares[l] + lanes.actSquares[l]))
            return false;
    return true;
}

/// Float tensors, in blocks: a block whose elements are all finite (the usual case) takes the
/// vectorized lanes, the rest the general loop. The same verdicts as accumulate(). `begin` is a
/// multiple of kBlock (the sample's groups are counted from there); `every` 0 makes no histogram
/// (small tensors, whose quantiles come from exactErrors). refBlock(start, count) gives the
/// reference's elements [start, start + count) in act's order.
template <typename RefBlock>
void accumulateFloats(const RefBlock &refBlock, const float *act, std::int64_t begin, std::int64_t end,
                      const Tolerance &tolerance, double epsilon, double maskFloor, std::int64_t every, Partial &p)
{
    // the scatter goes to two interleaved 32-bit histograms per kind (even and odd elements), so a run
    // of equal bins (exact matches, say) is two chains of increments instead of one, in half the cache;
    // they are added into p's, over the bins touched, before they could overflow, and left zeroed for
    // the thread's next tensor
    constexpr std::size_t kBins = kHistogramBins;
    struct Scratch {
        std::vector<std::uint32_t> absBins = std::vector<std::uint32_t>(kBlock), relBins = std::vector<std::uint32_t>(kBlock);
        std::vector<std::uint32_t> absCounts = std::vector<std::uint32_t>(2 * kBins), relCounts = std::vector<std::uint32_t>(2 * kBins);
    };
    thread_local Scratch scratch;
    std::vector<std::uint32_t> &absBins = scratch.absBins, &relBins = scratch.relBins;
    std::vector<std::uint32_t> &absCounts = scratch.absCounts, &relCounts = scratch.relCounts;
    std::uint64_t pending = 0;
    std::uint32_t absLow = kBins, absHigh = 0, relLow = kBins, relHigh = 0;
    const auto flushInto = [](Histogram &h, std::vector<std::uint32_t> &counts, std::uint32_t lo, std::uint32_t hi) {
        h.addCounts(counts.data(), counts.data() + kBins, lo, hi);
        counts[0] = counts[kBins] = 0;
        if (lo <= hi) {
            std::fill(counts.begin() + lo, counts.begin() + hi + 1, 0u);
            std::fill(counts.begin() + kBins + lo, counts.begin() + kBins + hi + 1, 0u);
        }
    };
    const auto flush = [&] {
        flushInto(p.absHistogram, absCounts, absLow, absHigh);
        flushInto(p.relHistogram, relCounts, relLow, relHigh);
        absLow = relLow = kBins;
        absHigh = relHigh = 0;
        pending = 0;
    };
    for (std::int64_t start = begin; start < end; start += kBlock) {
        const std::int64_t count = std::min(end, start + kBlock) - start;
        const float *ref = refBlock(start, count), *actual = act + start;
        // a partial last block of a sampled tensor takes the general loop, which samples element by element
        BlockSums b;
        if (every > 1 && count < kBlock) {
            accumulate(ref, actual, start, count, tolerance, epsilon, maskFloor, false, every, p);
            continue;
        }
        if (!sumFiniteBlock(ref, actual, count, tolerance.atol, tolerance.rtol, epsilon, maskFloor, every,
                            sampledGroup(start / kBlock, every), b, absBins.data(), relBins.data())) {
            accumulate(ref, actual, start, count, tolerance, epsilon, maskFloor, false, every, p);
            continue;
        }
        const auto binned = static_cast<std::size_t>(every > 0 ? count / every : 0);
        for (std::size_t i = 0; i < binned; ++i) {
            const std::size_t half = (i & 1) * kBins;
            ++absCounts[half + absBins[i]];
            ++relCounts[half + relBins[i]];
        }
        p.histogrammed += binned;
        for (int l = 0; l < kLanes; ++l) {
            absLow = std::min(absLow, b.absLow[l] + 1);
            absHigh = std::max(absHigh, b.absHigh[l]);
            relLow = std::min(relLow, b.relLow[l] + 1);
            relHigh = std::max(relHigh, b.relHigh[l]);
        }
        if ((pending += binned) >= (std::uint64_t(1) << 31))
            flush();
        bool tinyReferenceFailed = false;
        for (int l = 0; l < kLanes; ++l) {
            p.sumAbs += b.sumAbs[l];
            p.sumRel += b.sumRel[l];
            p.sumSquares += b.sumSquares[l];
            p.dot += b.dot[l];
            p.refSquares += b.refSquares[l];
            p.actSquares += b.actSquares[l];
            p.maxRel = std::max(p.maxRel, b.maxRel[l]);
            p.scale = std::max(p.scale, b.scale[l]);
            p.neededAtol = std::max(p.neededAtol, b.neededAtol[l]);
            p.neededRtol = std::max(p.neededRtol, b.neededRtol[l]);
            p.outOfTolerance += static_cast<std::int64_t>(b.failing[l]);
            tinyReferenceFailed = tinyReferenceFailed || b.tinyOverAtol[l] > 0;
        }
        if (tinyReferenceFailed && p.neededRtol < kInf) // the lanes took (e − atol)/ε there: the exact need is larger
            for (std::int64_t i = 0; i < count; ++i) {
                const double x = ref[i], e = std::fabs(static_cast<double>(actual[i]) - x), ax = std::fabs(x);
                if (ax < epsilon && e > tolerance.atol)
                    p.neededRtol = std::max(p.neededRtol, ax > 0 ? e / ax : kInf);
            }
        double blockMax = 0;
        for (int l = 0; l < kLanes; ++l)
            blockMax = std::max(blockMax, b.maxAbs[l]);
        // a new worst element (rare after the first blocks): the earliest with the block's largest error,
        // found again with the lanes' very arithmetic
        if (blockMax > p.worst) {
            p.worst = blockMax;
            std::int64_t i = 0;
            while (std::fabs(static_cast<double>(actual[i]) - static_cast<double>(ref[i])) != blockMax)
                ++i;
            p.worstIndex = start + i;
        }
        p.maxAbs = std::max(p.maxAbs, blockMax);
    }
    flush();
}

/// Every element's absolute and relative error as floats, for exact quantiles: accumulate()'s very
/// arithmetic, in a loop without branches.
void exactErrors(const float *ref, const float *act, std::int64_t count, double epsilon, Partial &p)
{
    p.absErrors.resize(static_cast<std::size_t>(count));
    p.relErrors.resize(static_cast<std::size_t>(count));
    float *absOut = p.absErrors.data(), *relOut = p.relErrors.data();
    for (std::int64_t i = 0; i < count; ++i) {
        const double x = ref[i], y = act[i];
        const bool xNan = x != x, yNan = y != y;
        const double finite = x == y ? 0.0 : std::fabs(y - x); // equal infinities included
        const double e = xNan || yNan ? (xNan && yNan ? 0.0 : kInf) : finite;
        absOut[i] = static_cast<float>(e);
        relOut[i] = static_cast<float>(e / std::max(epsilon, std::fabs(x))); // max(ε, NaN) is ε
    }
}

/// Attention masks fill with the type's lowest value (finfo.min) and scores add to it: elements at
/// half the largest finite magnitude or more are masks, not data, and stay out of the reference's
/// scale (else one mask makes every error look ~1e-38 of it, and the next Softmax an amplifier).
double maskFloorOf(int dataType)
{
    switch (dataType) {
    case onnx::TensorProto::FLOAT: return 0.5 * std::numeric_limits<float>::max();
    case onnx::TensorProto::DOUBLE: return 0.5 * std::numeric_limits<double>::max();
    case onnx::TensorProto::FLOAT16: return 0.5 * 65504.0;
    case onnx::TensorProto::BFLOAT16: return 0.5 * 3.3895313892515355e38;
    default: return kInf; // integers and the 8-bit floats: no masks of this kind
    }
}

/// The reference's scale ahead of the pass, for a tolerance per scale: its largest finite |element|
/// below the mask floor (the pass finds the same).
template <typename T>
double scaleOf(const T *values, std::int64_t n, double maskFloor)
{
    double scale = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double ax = std::fabs(static_cast<double>(values[i]));
        if (ax < maskFloor && ax > scale) // NaN and infinities compare false
            scale = ax;
    }
    return scale;
}

double valueAt(const runtime::Tensor &t, std::int64_t i)
{
    return t.dataType() == onnx::TensorProto::FLOAT ? t.data<float>()[i] : t.data<double>()[i];
}

} // namespace

TensorMetrics compareTensors(const runtime::Tensor &reference, const runtime::Tensor &actual, const Tolerance &tolerance,
                             bool logits, double epsilon, const runtime::PhysicalLayout *actualLayout)
{
    TensorMetrics m;
    if (reference.dataType() != actual.dataType()) {
        m.mismatch = "element types differ: " + ir::dataTypeName(reference.dataType()) + " vs " + ir::dataTypeName(actual.dataType());
        return m;
    }
    if (reference.shape() != actual.shape()) {
        m.mismatch = "shapes differ: " + runtime::shapeString(reference.shape()) + " vs " + runtime::shapeString(actual.shape());
        return m;
    }
    const std::int64_t n = reference.size();
    const bool keepErrors = n <= kExactQuantileLimit;
    // large float tensors are compared in the actual run's own order (the reference gathered block by
    // block into it), the rest in row-major order
    const bool inLayout = actualLayout && reference.dataType() == onnx::TensorProto::FLOAT && !keepErrors && !logits;
    if (actualLayout && !inLayout)
        return compareTensors(reference, runtime::rowMajorOf(actual, *actualLayout), tolerance, logits, epsilon);
    if (reference.dataType() == onnx::TensorProto::STRING) {
        m.elements = reference.size();
        std::int64_t differing = 0;
        for (std::int64_t i = 0; i < reference.size(); ++i)
            differing += reference.strings()[static_cast<std::size_t>(i)] != actual.strings()[static_cast<std::size_t>(i)];
        m.passed = differing == 0;
        m.outOfTolerance = differing;
        m.maxAbs = m.passed ? 0 : kInf;
        return m;
    }
    m.elements = n;
    const bool native = reference.dataType() == onnx::TensorProto::FLOAT || reference.dataType() == onnx::TensorProto::DOUBLE;
    const double maskFloor = maskFloorOf(reference.dataType());
    const runtime::Tensor a = native ? reference : runtime::kernels::convertTensor(reference, onnx::TensorProto::DOUBLE);
    const runtime::Tensor b = native ? actual : runtime::kernels::convertTensor(actual, onnx::TensorProto::DOUBLE);
    Tolerance applied = tolerance;
    if (tolerance.atolPerScale)
        applied.atol *= a.dataType() == onnx::TensorProto::FLOAT ? scaleOf(a.data<float>(), n, maskFloor)
                                                                 : scaleOf(a.data<double>(), n, maskFloor);
    // partial results per chunk, on the OpenMP pool for large tensors, merged in chunk order
    const int chunks = n >= (1 << 12) ? std::max(1, omp_get_max_threads()) : 1;
    std::vector<Partial> partials(static_cast<std::size_t>(chunks));
    const std::int64_t every = sampleEvery(n);
    const float *rowMajorRef = a.dataType() == onnx::TensorProto::FLOAT ? a.data<float>() : nullptr;
    const auto refInPlace = [&](std::int64_t start, std::int64_t) { return rowMajorRef + start; };
    // chunks start on block boundaries, where the blocks and the sample's groups are counted from
    const auto chunkStart = [&](int c) { return c == chunks ? n : n * c / chunks / kBlock * kBlock; };
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
        Partial &p = partials[static_cast<std::size_t>(c)];
        const std::int64_t first = chunkStart(c), count = chunkStart(c + 1) - first;
        if (inLayout) {
            runtime::PhysicalOrderReader reader(rowMajorRef, *actualLayout);
            const auto refGathered = [&](std::int64_t start, std::int64_t size) { return reader.read(start, size); };
            accumulateFloats(refGathered, b.data<float>(), first, first + count, applied, epsilon, maskFloor, every, p);
        } else if (rowMajorRef && !keepErrors) {
            accumulateFloats(refInPlace, b.data<float>(), first, first + count, applied, epsilon, maskFloor, every, p);
        } else if (rowMajorRef) {
            exactErrors(rowMajorRef + first, b.data<float>() + first, count, epsilon, p);
            accumulateFloats(refInPlace, b.data<float>(), first, first + count, applied, epsilon, maskFloor, 0, p);
        } else
            accumulate(a.data<double>() + first, b.data<double>() + first, first, count, applied, epsilon, maskFloor, keepErrors, 1, p);
    }
    Partial all = std::move(partials.front());
    for (std::size_t c = 1; c < partials.size(); ++c)
        all.merge(std::move(partials[c]));
    all.finish(m, n, tolerance.quantile);
    m.appliedAtol = applied.atol;
    if (m.worstIndex >= 0) {
        m.worstActual = valueAt(b, m.worstIndex);
        if (inLayout)
            m.worstIndex = actualLayout->rowMajorIndexOf(m.worstIndex);
        m.worstReference = valueAt(a, m.worstIndex);
        std::int64_t rest = m.worstIndex;
        m.worstAt.assign(reference.shape().size(), 0);
        for (std::size_t d = reference.shape().size(); d-- > 0;) {
            m.worstAt[d] = reference.shape()[d] ? rest % reference.shape()[d] : 0;
            rest = reference.shape()[d] ? rest / reference.shape()[d] : 0;
        }
    }
    if (logits && !reference.shape().empty() && reference.shape().back() >= 2) {
        const runtime::Tensor da = runtime::kernels::convertTensor(a, onnx::TensorProto::DOUBLE);
        const runtime::Tensor db = runtime::kernels::convertTensor(b, onnx::TensorProto::DOUBLE);
        topAgreement(da.data<double>(), db.data<double>(), n / reference.shape().back(), reference.shape().back(), m);
    }
    return m;
}

} // namespace portolan::compare
