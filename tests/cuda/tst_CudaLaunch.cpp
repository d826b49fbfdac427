// The CUDA kernels' launch arithmetic, on the CPU (no GPU needed): grid sizes, vector widths, the
// broadcast plans of binary ops (against numpy's rule, index by index), and rows onto warps.
#include "runtime/cuda/Launch.h"

#include <QtTest>

#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace portolan::runtime::cuda;

namespace {

using Dims = std::vector<std::int64_t>;

/// numpy's broadcast: the flat index into `operand` that output element `i` reads.
std::int64_t numpyOffset(const Dims &out, const Dims &operand, std::int64_t i)
{
    std::int64_t offset = 0, stride = 1;
    for (std::size_t d = out.size(); d-- > 0;) {
        const std::int64_t coordinate = i % out[d];
        i /= out[d];
        const std::size_t missing = out.size() - operand.size();
        if (d < missing)
            continue;
        const std::int64_t extent = operand[d - missing];
        offset += (extent == 1 ? 0 : coordinate) * stride;
        stride *= extent;
    }
    return offset;
}

} // namespace

class tst_CudaLaunch : public QObject {
    Q_OBJECT
private slots:
    void gridsFillTheDeviceAndNoMore()
    {
        const GridShape small = gridFor(1000, 132);
        QCOMPARE(small.threads, kThreadsPerBlock);
        QCOMPARE(small.blocks, 4u); // 1000 items: 4 blocks of 256
        QCOMPARE(gridFor(0, 132).blocks, 1u);
        QCOMPARE(gridFor(std::int64_t(1) << 30, 132).blocks, 132u * 8); // grid-stride beyond that
    }
    void vectorAccessesNeedAlignmentAndWholeGroups()
    {
        alignas(16) float buffer[12];
        QCOMPARE(vectorWidth(8, {buffer, buffer + 4}), 4);
        QCOMPARE(vectorWidth(8, {buffer, buffer + 1}), 1); // misaligned
        QCOMPARE(vectorWidth(10, {buffer}), 1);             // a partial group
    }
    void commonBroadcastsCollapse()
    {
        const auto same = planBroadcast({2, 3, 4}, {2, 3, 4}, {2, 3, 4});
        QVERIFY(same);
        QCOMPARE(same->rank, 1);
        QCOMPARE(same->count, std::int64_t(24));
        const auto bias = planBroadcast({8, 16, 32}, {8, 16, 32}, {32});
        QVERIFY(bias);
        QCOMPARE(bias->rank, 2); // rows × columns, the bias repeating per row
        QCOMPARE(bias->strideB[0], std::int64_t(0));
        QCOMPARE(bias->strideB[1], std::int64_t(1));
        const auto channel = planBroadcast({1, 64, 7, 7}, {1, 64, 7, 7}, {64, 1, 1});
        QVERIFY(channel);
        QCOMPARE(channel->rank, 2);
        QVERIFY(!planBroadcast({2, 3}, {2, 4}, {2, 3})); // 4 does not broadcast to 3
        QVERIFY(!planBroadcast({3}, {2, 3}, {3}));       // an operand of higher rank than the output
        const auto empty = planBroadcast({2, 0, 3}, {2, 0, 3}, {3});
        QVERIFY(empty);
        QCOMPARE(empty->count, std::int64_t(0));
        // scalars (ONNX's DynamicQuantizeLinear, expanded, takes Min and Max of two): one element,
        // read at offset 0 on every side
        const auto scalars = planBroadcast({}, {}, {});
        QVERIFY(scalars);
        QCOMPARE(scalars->count, std::int64_t(1));
        std::int64_t a = -1, b = -1;
        scalars->offsets(0, a, b);
        QCOMPARE(a, std::int64_t(0));
        QCOMPARE(b, std::int64_t(0));
        const auto scalarCopy = planStridedCopy({}, {}, {});
        QVERIFY(scalarCopy);
        QCOMPARE(scalarCopy->plan.count, std::int64_t(1));
    }
    void plansReadWhatNumpyReads()
    {
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> rank(1, 5), extent(1, 4), coin(0, 2);
        for (int trial = 0; trial < 300; ++trial) {
            Dims out(static_cast<std::size_t>(rank(rng)));
            for (auto &d : out)
                d = extent(rng);
            auto operandOf = [&] {
                Dims operand(out.begin() + std::uniform_int_distribution<int>(0, static_cast<int>(out.size()))(rng), out.end());
                for (auto &d : operand)
                    if (coin(rng) == 0)
                        d = 1;
                return operand;
            };
            const Dims a = operandOf(), b = operandOf();
            const auto plan = planBroadcast(out, a, b);
            QVERIFY(plan);
            std::int64_t count = 1;
            for (const auto d : out)
                count *= d;
            QCOMPARE(plan->count, count);
            QVERIFY(plan->rank <= kMaxRank);
            for (std::int64_t i = 0; i < count; ++i) {
                std::int64_t ia = 0, ib = 0;
                plan->offsets(i, ia, ib);
                QCOMPARE(ia, numpyOffset(out, a, i));
                QCOMPARE(ib, numpyOffset(out, b, i));
            }
        }
    }
    void stridedCopiesWalkWhatTheyDescribe()
    {
        // a transpose [2,3,4] -> perm (2,0,1): output [4,2,3], reading the input through permuted strides
        const Dims in{2, 3, 4}, out{4, 2, 3};
        const auto copy = planStridedCopy(out, {1, 12, 4}, {6, 3, 1});
        QVERIFY(copy);
        QCOMPARE(copy->plan.count, std::int64_t(24));
        for (std::int64_t i = 0; i < 24; ++i) {
            std::int64_t from = 0, to = 0;
            copy->plan.offsets(i, from, to);
            QCOMPARE(to, i); // the output in order
            const std::int64_t a = i / 6, b = (i / 3) % 2, c = i % 3; // out[a][b][c] = in[b][c][a]
            QCOMPARE(from, b * 12 + c * 4 + a);
        }
        // contiguous on both sides merges to one dim; a box inside a larger tensor keeps its rows
        const auto whole = planStridedCopy({2, 3, 4}, {12, 4, 1}, {12, 4, 1});
        QVERIFY(whole);
        QCOMPARE(whole->plan.rank, 1);
        const auto box = planStridedCopy({2, 2}, {5, 1}, {2, 1}, 6, 0); // rows 1-2, cols 1-2 of a 4x5
        QVERIFY(box);
        QCOMPARE(box->plan.rank, 2);
        std::vector<std::int64_t> read;
        for (std::int64_t i = 0; i < 4; ++i) {
            std::int64_t from = 0, to = 0;
            box->plan.offsets(i, from, to);
            read.push_back(box->srcBase + from);
        }
        QCOMPARE(read, (std::vector<std::int64_t>{6, 7, 11, 12}));
    }
    void rowsMapOntoWarpsOrBlocks()
    {
        const RowLaunch narrow = rowLaunch(100, 768);
        QVERIFY(narrow.warpPerRow);
        QCOMPARE(narrow.threads, narrow.rowsPerBlock * kWarpSize);
        QCOMPARE(narrow.blocks, (100u + narrow.rowsPerBlock - 1) / narrow.rowsPerBlock);
        const RowLaunch wide = rowLaunch(3, 50000);
        QVERIFY(!wide.warpPerRow);
        QCOMPARE(wide.blocks, 3u);
        QCOMPARE(wide.threads, kThreadsPerBlock);
    }
    void tiledAttentionSharedMemoryFitsAndAligns()
    {
        // every head dim the tiled kernel takes: regions in order, none overlapping, each 128-byte
        // aligned; each 16×16 WMMA tile it loads or stores 32-byte aligned (whole tiles of 16 rows
        // and 16 columns apart); and the whole within an H100's 227 KiB a block
        for (int d = 16; d <= TiledAttentionLayout::kMaxHeadDim; d += 16) {
            const TiledAttentionLayout l = TiledAttentionLayout::of(d);
            const std::size_t rows = TiledAttentionLayout::kRows, keys = TiledAttentionLayout::kKeys;
            const std::vector<std::pair<std::size_t, std::size_t>> regions{
                {l.q, rows * l.ldQ * 2}, {l.k, keys * l.ldK * 2}, {l.v, keys * l.ldV * 2}, {l.s, rows * l.ldS * 4},
                {l.p, rows * l.ldP * 2}, {l.o, rows * l.ldO * 4}, {l.stats, 2 * rows * 4}}; // stats: each row's max and sum
            for (std::size_t r = 0; r < regions.size(); ++r) {
                QCOMPARE(regions[r].first % 128, std::size_t(0));
                const std::size_t end = regions[r].first + regions[r].second;
                QVERIFY(end <= (r + 1 < regions.size() ? regions[r + 1].first : l.bytes));
            }
            for (const auto &[ld, elementBytes] : std::vector<std::pair<int, int>>{{l.ldQ, 2}, {l.ldK, 2}, {l.ldV, 2}, {l.ldP, 2}, {l.ldS, 4}, {l.ldO, 4}}) {
                QCOMPARE((16 * ld * elementBytes) % 32, 0);    // a tile 16 rows down
                QCOMPARE((16 * elementBytes) % 32, 0);         // a tile 16 columns on
                QCOMPARE((ld * elementBytes) % 16, 0);         // WMMA's ldm: 16 bytes
            }
            QVERIFY(l.ldQ >= d && l.ldO >= d && l.ldS >= TiledAttentionLayout::kKeys && l.ldP >= TiledAttentionLayout::kKeys);
            QVERIFY2(l.bytes <= 227 * 1024, std::to_string(l.bytes).c_str());
        }
        QVERIFY(TiledAttentionLayout::of(64).bytes < 100 * 1024); // two blocks an SM at BERT's head dim
    }
};

QTEST_GUILESS_MAIN(tst_CudaLaunch)
#include "tst_CudaLaunch.moc"
