// Rendering the report: Qt's HTML subset for the text and tables, QSvgRenderer for the chart. The
// document is laid out on the PDF writer itself (its resolution, its page), so points are points
// and the chart spans the text width.
#include "views/report/ReportPdf.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QGuiApplication>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>

namespace portolan::views {

namespace {

const char *const kStripUrl = "portolan:strip.png";
const char *const kHeatUrl = "portolan:heat.png";
/// A page holds the verdict, the outputs, the chart and this many suspects (the rest are in the JSON).
constexpr std::size_t kSuspectsOnAPage = 5;
/// How far a long report is shrunk to stay on one page: 9 pt text at 0.65 is 5.9 pt, still legible printed.
constexpr double kSmallestScale = 0.65;

/// An SVG drawn into an image `width` device pixels wide, its height by the SVG's aspect.
QImage svgImage(const std::string &svgText, int width)
{
    QSvgRenderer svg(QByteArray::fromStdString(svgText));
    const QSize size = svg.defaultSize();
    QImage image(width, std::max(1, width * size.height() / std::max(1, size.width())), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    svg.render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
    return image;
}

} // namespace

void layOutReport(const report::PortReport &report, QTextDocument &document, int width, int dpi)
{
    document.addResource(QTextDocument::ImageResource, QUrl(kStripUrl), svgImage(report::errorStripSvg(report), width));
    // Qt sizes <img> in pixels of 1/96 inch and scales them to the device: the pictures at full width
    report::HtmlImages images{kStripUrl, {}, width * 96 / dpi * 97 / 100, 0};
    if (!report.heatSvg.empty()) {
        const QImage heat = svgImage(report.heatSvg, width);
        document.addResource(QTextDocument::ImageResource, QUrl(kHeatUrl), heat);
        images.heat = kHeatUrl;
        images.heatHeight = images.width * heat.height() / heat.width();
    }
    document.setDocumentMargin(0);
    report::PortReport page = report;
    if (page.suspects.size() > kSuspectsOnAPage)
        page.suspects.resize(kSuspectsOnAPage);
    document.setHtml(QString::fromStdString(report::reportHtml(page, images)));
}

support::Status writeReportPdf(const report::PortReport &report, const QString &path, support::Overwrite overwrite)
{
    if (!qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
        return support::makeError("no-gui", "rendering a PDF needs a QGuiApplication", path.toStdString());
    QBuffer rendered;
    rendered.open(QIODevice::WriteOnly);
    {
        QPdfWriter pdf(&rendered);
        pdf.setResolution(300);
        pdf.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(14, 14, 14, 14), QPageLayout::Millimeter));
        pdf.setTitle(QString::fromStdString("Port report: " + report.model));
        pdf.setCreator(QString::fromStdString(report.generatedBy));
        const QSizeF page = pdf.pageLayout().paintRectPixels(pdf.resolution()).size();
        QTextDocument document;
        document.documentLayout()->setPaintDevice(&pdf);
        // One page: a report that runs longer is laid out wider and drawn smaller, down to a floor
        // below which text would be unreadable (then it takes a second page).
        double scale = 1;
        for (;;) {
            document.setPageSize(page / scale);
            layOutReport(report, document, static_cast<int>(page.width() / scale), pdf.resolution());
            if (document.pageCount() <= 1 || scale <= kSmallestScale)
                break;
            scale = std::max(kSmallestScale, scale * 0.92);
        }
        QPainter painter(&pdf);
        painter.scale(scale, scale);
        const QSizeF laidOut = page / scale;
        for (int i = 0; i < document.pageCount(); ++i) {
            if (i > 0)
                pdf.newPage();
            painter.save();
            painter.translate(0, -laidOut.height() * i);
            document.drawContents(&painter, QRectF(QPointF(0, laidOut.height() * i), laidOut));
            painter.restore();
        }
    } // the PDF is complete once the writer is gone
    const QByteArray &bytes = rendered.data();
    if (bytes.isEmpty())
        return support::makeError("cannot-write", "rendering the PDF produced no bytes", path.toStdString());
    return support::writeFileWhole(path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), overwrite);
}

session::PdfWriter reportPdfWriter()
{
    return [](const report::PortReport &report, const std::string &path, bool force) {
        return writeReportPdf(report, QString::fromStdString(path), force ? support::Overwrite::Allow : support::Overwrite::Refuse);
    };
}

} // namespace portolan::views
