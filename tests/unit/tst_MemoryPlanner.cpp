// The arena planner: buffers alive at the same time never share bytes, and reuse makes a chain cheap.
#include "runtime/MemoryPlanner.h"

#include <QTest>

#include <random>

using namespace portolan::runtime;

class tst_MemoryPlanner : public QObject {
    Q_OBJECT
private slots:
    void chainReusesMemory();
    void overlappingLifetimesNeverShareBytes();
    void emptyAndZeroSized();
};

void tst_MemoryPlanner::chainReusesMemory()
{
    // A chain: each tensor lives from its producer to the next step only.
    std::vector<BufferLifetime> buffers;
    for (std::uint32_t step = 0; step < 20; ++step)
        buffers.push_back({1000 + 64 * step, step, step + 1});
    const MemoryPlan plan = planMemory(buffers);
    QVERIFY(plan.arenaBytes <= plan.livePeakBytes + 2 * 2304); // close to the two largest neighbours
    QVERIFY(plan.arenaBytes * 5 < plan.naiveBytes);
    QCOMPARE(plan.offsets.size(), buffers.size());
}

void tst_MemoryPlanner::overlappingLifetimesNeverShareBytes()
{
    std::mt19937 rng(7);
    for (int round = 0; round < 50; ++round) {
        std::vector<BufferLifetime> buffers;
        const int count = 1 + static_cast<int>(rng() % 200);
        for (int i = 0; i < count; ++i) {
            const auto first = static_cast<std::uint32_t>(rng() % 100);
            const auto length = static_cast<std::uint32_t>(rng() % 20);
            buffers.push_back({1 + rng() % 100000, first, first + length});
        }
        const MemoryPlan plan = planMemory(buffers);
        QVERIFY(plan.arenaBytes >= plan.livePeakBytes);
        QVERIFY(plan.arenaBytes <= plan.naiveBytes);
        for (std::size_t a = 0; a < buffers.size(); ++a) {
            QCOMPARE(plan.offsets[a] % kBufferAlignment, std::size_t(0));
            QVERIFY(plan.offsets[a] + buffers[a].bytes <= plan.arenaBytes);
            for (std::size_t b = a + 1; b < buffers.size(); ++b) {
                const bool liveTogether = !(buffers[a].lastStep < buffers[b].firstStep || buffers[b].lastStep < buffers[a].firstStep);
                const bool shareBytes = plan.offsets[a] < plan.offsets[b] + buffers[b].bytes &&
                                        plan.offsets[b] < plan.offsets[a] + buffers[a].bytes;
                QVERIFY2(!(liveTogether && shareBytes), qPrintable(QString("round %1: buffers %2 and %3").arg(round).arg(a).arg(b)));
            }
        }
    }
}

void tst_MemoryPlanner::emptyAndZeroSized()
{
    QCOMPARE(planMemory({}).arenaBytes, std::size_t(0));
    const MemoryPlan plan = planMemory({{0, 0, 3}, {128, 1, 2}});
    QCOMPARE(plan.arenaBytes, std::size_t(128));
}

QTEST_GUILESS_MAIN(tst_MemoryPlanner)
#include "tst_MemoryPlanner.moc"
