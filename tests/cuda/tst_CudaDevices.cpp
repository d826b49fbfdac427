// The CUDA device query: real figures on a GPU machine, a clean skip with the reason elsewhere.
#include "runtime/cuda/CudaDevices.h"

#include <QtTest>

using namespace portolan::runtime::cuda;

class TestCudaDevices : public QObject {
    Q_OBJECT

private slots:
    void queryNeverFails()
    {
        const CudaDeviceQuery query = queryCudaDevices();
        QVERIFY(query.runtimeVersion >= 12000); // built against CUDA 12 or newer
        if (query.devices.empty()) {
            QVERIFY(!query.problem.empty()); // says why
            QSKIP(qPrintable("no usable GPU: " + QString::fromStdString(query.problem)));
        }
        for (const CudaDevice &d : query.devices) {
            QVERIFY(!d.name.empty());
            QVERIFY(d.memoryBytes > (std::uint64_t(1) << 30));
            QVERIFY(d.computeMajor >= 7);
            QVERIFY(d.multiprocessors > 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaDevices)
#include "tst_CudaDevices.moc"
