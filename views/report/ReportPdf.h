// The port report as a PDF, rendered with Qt's rich text (the same HTML as the .html report, the
// strip chart drawn from its SVG into an image): File → Export in the GUI, and `portolan report
// -o report.pdf` headless (under a QGuiApplication on the offscreen platform).
#pragma once

#include "report/PortReport.h"
#include "session/PortReportBuilder.h"
#include "support/Expected.h"
#include "support/StagedFile.h"

#include <QString>

class QTextDocument;

namespace portolan::views {

/// Lays the report out in `document`, `width` pixels of its paint device (`dpi`) wide, the strip chart as an
/// image resource; at most a page's worth of suspects.
void layOutReport(const report::PortReport &report, QTextDocument &document, int width, int dpi);

/// Writes the report to `path` as a PDF (A4), whole or not at all (support::writeFileWhole). Needs a
/// QGuiApplication.
support::Status writeReportPdf(const report::PortReport &report, const QString &path, support::Overwrite overwrite);

/// writeReportPdf as the PDF writer session::writePortReport takes.
session::PdfWriter reportPdfWriter();

} // namespace portolan::views
