// The reference interpreter's packed GEMM (kernels/GemmKernel.h): every micro-kernel this CPU has, on
// sizes around its panel and block edges, strided operands, and both cores, against a plain double sum.
#include "runtime/reference/kernels/GemmKernel.h"

#include <QtTest>

#include <cmath>
#include <mutex>
#include <random>
#include <string>
#include <vector>

using namespace portolan::runtime::kernels;

namespace {

struct Case {
    std::int64_t M, N, K;
    bool transposedA = false;
    bool parallel = false;
    bool transposedB = false; // B(k, j) at b[j·K + k], as Gemm's transB stores it
};

/// Runs one product and returns the largest error over the bound Σ|a·b| (0 means exact), or -1 when
/// some element was handed to the sink other than exactly once.
template <typename T>
double worstError(const Case &cs, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-2.0, 2.0);
    std::vector<T> a(static_cast<std::size_t>(cs.M * cs.K)), b(static_cast<std::size_t>(cs.K * cs.N));
    for (T &v : a)
        v = static_cast<T>(dist(rng));
    for (T &v : b)
        v = static_cast<T>(dist(rng));
    // A(i, k) lives at a[k·M + i] when transposed
    const StridedMatrix<T> am = cs.transposedA ? StridedMatrix<T>{a.data(), 1, cs.M} : StridedMatrix<T>{a.data(), cs.K, 1};
    const auto elementA = [&](std::int64_t i, std::int64_t k) {
        return static_cast<double>(cs.transposedA ? a[k * cs.M + i] : a[i * cs.K + k]);
    };
    const StridedMatrix<T> bm = cs.transposedB ? StridedMatrix<T>{b.data(), 1, cs.K} : StridedMatrix<T>{b.data(), cs.N, 1};
    const auto elementB = [&](std::int64_t k, std::int64_t j) {
        return static_cast<double>(cs.transposedB ? b[j * cs.K + k] : b[k * cs.N + j]);
    };
    std::vector<double> got(static_cast<std::size_t>(cs.M * cs.N), 0.0);
    std::vector<int> visits(got.size(), 0);
    std::mutex guard;
    gemmInDouble<T>(am, bm, cs.M, cs.N, cs.K,
                    [&](std::int64_t row, std::int64_t col0, const double *sums, std::int64_t count) {
                        const std::lock_guard lock(guard);
                        for (std::int64_t j = 0; j < count; ++j) {
                            got[row * cs.N + col0 + j] = sums[j];
                            ++visits[row * cs.N + col0 + j];
                        }
                    },
                    cs.parallel);
    double worst = 0;
    for (std::int64_t i = 0; i < cs.M; ++i)
        for (std::int64_t j = 0; j < cs.N; ++j) {
            if (visits[i * cs.N + j] != 1)
                return -1;
            double sum = 0, bound = 0;
            for (std::int64_t k = 0; k < cs.K; ++k) {
                const double p = elementA(i, k) * elementB(k, j);
                sum += p;
                bound += std::fabs(p);
            }
            const double err = std::fabs(got[i * cs.N + j] - sum);
            worst = std::max(worst, bound > 0 ? err / bound : err);
        }
    return worst;
}

const std::vector<Case> &cases()
{
    static const std::vector<Case> all = {
        {1, 1, 1},      {1, 1000, 512}, {7, 15, 3},      {8, 16, 256},      {9, 17, 257},  {130, 257, 600},
        {33, 48, 0},    {5, 300, 40, true},              {129, 20, 513, true}, {300, 700, 70, false, true},
        {64, 3136, 147, false, true}, {9, 40, 21, false, false, true}, {130, 257, 600, true, false, true},
        {197, 768, 768, false, true, true},
    };
    return all;
}

} // namespace

class TestReferenceGemm : public QObject {
    Q_OBJECT

private slots:
    void everyKernelMatchesAPlainSum_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("caseIndex");
        for (const char *kernel : {"avx512", "avx2", "plain"})
            for (std::size_t i = 0; i < cases().size(); ++i) {
                const Case &c = cases()[i];
                const std::string name = std::string(kernel) + " " + std::to_string(c.M) + "x" + std::to_string(c.N) +
                                         "x" + std::to_string(c.K) + (c.transposedA ? " At" : "") + (c.transposedB ? " Bt" : "") +
                                         (c.parallel ? " parallel" : "");
                QTest::newRow(name.c_str()) << QString(kernel) << int(i);
            }
    }

    void everyKernelMatchesAPlainSum()
    {
        QFETCH(QString, kernel);
        QFETCH(int, caseIndex);
        const std::string previous = gemmMicroKernelName();
        if (!useGemmMicroKernel(kernel.toStdString()))
            QSKIP("this CPU lacks the kernel's instructions");
        const Case &c = cases()[static_cast<std::size_t>(caseIndex)];
        // double sums of float products are exact up to the sum's rounding: a few ulps of Σ|a·b|
        const double floatError = worstError<float>(c, 7u + static_cast<unsigned>(caseIndex));
        const double doubleError = worstError<double>(c, 11u + static_cast<unsigned>(caseIndex));
        QVERIFY(useGemmMicroKernel(previous));
        QVERIFY2(floatError >= 0 && doubleError >= 0, "an element was handed over other than once");
        QVERIFY2(floatError < 1e-14, std::to_string(floatError).c_str());
        QVERIFY2(doubleError < 1e-14, std::to_string(doubleError).c_str());
    }

    void theBestKernelIsChosen()
    {
        const std::string name = gemmMicroKernelName();
        QVERIFY(name == "avx512" || name == "avx2" || name == "plain");
        QVERIFY(!useGemmMicroKernel("sse9"));
        QCOMPARE(std::string(gemmMicroKernelName()), name);
        if (__builtin_cpu_supports("avx512f"))
            QCOMPARE(name, std::string("avx512"));
    }
};

QTEST_APPLESS_MAIN(TestReferenceGemm)
#include "tst_ReferenceGemm.moc"
