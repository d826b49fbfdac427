// The GPU profile list (see GpuProfileView.h).
#include "views/compare/GpuProfileView.h"

#include <QBrush>
#include <QColor>

namespace portolan::views {

namespace {

enum Column { Node, Op, Kernel, Precision, Milliseconds, Bandwidth, BandwidthShare, Flops, FlopsShare, Why, Columns };

QString share(double s, bool measured)
{
    return measured ? QStringLiteral("%1%").arg(100 * s, 0, 'f', 0) : QStringLiteral("—");
}

} // namespace

GpuProfileView::GpuProfileView(QWidget *parent) : QTreeWidget(parent)
{
    setHeaderLabels({tr("Node"), tr("Op"), tr("Kernel"), tr("Precision"), tr("ms"), tr("GB/s"), tr("of copy"), tr("GFLOP/s"),
                     tr("of MatMul"), tr("Why")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setToolTip(tr("B's nodes by time in one unobserved run: device time for kernels, host time for the CPU's; "
                  "shares of the device's measured copy bandwidth and matrix-product rate"));
}

void GpuProfileView::setProfile(const runtime::AcceleratorProfile *profile)
{
    clear();
    if (!profile)
        return;
    const bool bandwidthMeasured = profile->copyBytesPerSecond > 0, flopsMeasured = profile->matmulFlopsPerSecond > 0;
    for (const runtime::AcceleratorNode &n : profile->byTime()) {
        const auto rates = profile->ratesOf(n);
        const QString why = QString::fromStdString(n.onHost() ? n.whyFallback : n.whyPrecision);
        auto *item = new QTreeWidgetItem(this, {QString::fromStdString(n.name), QString::fromStdString(n.opType),
                                                QString::fromStdString(n.implementation), QString::fromStdString(n.precision),
                                                QString::number(n.milliseconds, 'f', 3), QString::number(rates.bytesPerSecond / 1e9, 'f', 0),
                                                share(rates.bandwidthShare, bandwidthMeasured && !n.onHost()),
                                                QString::number(rates.flopsPerSecond / 1e9, 'f', 0),
                                                share(rates.flopsShare, flopsMeasured && !n.onHost()), why});
        item->setToolTip(Why, why);
        for (const int c : {Milliseconds, Bandwidth, BandwidthShare, Flops, FlopsShare})
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (n.onHost()) // a fallback: the time the port spends off the accelerator
            for (int c = 0; c < Columns; ++c)
                item->setForeground(c, QBrush(QColor(0xb3, 0x26, 0x1e)));
    }
    for (int c = 0; c < Why; ++c)
        resizeColumnToContents(c);
}

} // namespace portolan::views
