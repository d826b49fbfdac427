// File → Export Port Report: the compare dock's last comparison, with the findings dock's target
// check, written by Workbench::report on a worker thread (a big model's report takes seconds).
#include "gui/MainWindow.h"

#include "views/common/Background.h"
#include "views/compare/ComparePanel.h"
#include "views/diagnose/FindingsPanel.h"
#include "views/report/ReportPdf.h"

#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>

#include <functional>

namespace portolan::gui {

namespace {

/// What writes the report, made on the GUI thread from what the docks hold now; it runs anywhere.
/// It keeps the workbench and the comparison alive, so opening another model meanwhile is safe.
std::function<QString()> portReportJob(std::shared_ptr<session::Workbench> workbench,
                                       std::shared_ptr<const session::ComparisonOutcome> outcome, session::ReportRequest request)
{
    workbench->findings(); // computed (and cached) here: the worker only reads them
    return [workbench = std::move(workbench), outcome = std::move(outcome), request = std::move(request)]() -> QString {
        if (auto written = workbench->report(*outcome, request); !written)
            return QString::fromStdString(written.error().format());
        return {};
    };
}

} // namespace

QString MainWindow::needsComparison() const
{
    return tr("Run a comparison first (the Compare dock): the report is about its result.");
}

static session::ReportRequest reportRequest(const QString &path, const views::FindingsPanel &findings)
{
    session::ReportRequest request;
    request.outputPath = path.toStdString();
    request.overwrite = true; // the file dialog asked before replacing the file
    request.target = findings.targetProfile();
    request.pdf = views::reportPdfWriter();
    return request;
}

QString MainWindow::writePortReport(const QString &path)
{
    if (!m_workbench || !m_compare->outcome())
        return needsComparison();
    return portReportJob(m_workbench, m_compare->sharedOutcome(), reportRequest(path, *m_findings))();
}

void MainWindow::startPortReport(const QString &path)
{
    if (!m_workbench || !m_compare->outcome()) {
        emit portReportFinished(path, needsComparison());
        return;
    }
    m_writingReport = true;
    m_statusLabel->setText(tr("Writing the port report to %1…").arg(path));
    views::runInBackground(this, portReportJob(m_workbench, m_compare->sharedOutcome(), reportRequest(path, *m_findings)),
                           [this, path](const QString &error) {
                               m_writingReport = false;
                               if (!error.isEmpty())
                                   QMessageBox::critical(this, tr("Export Port Report"), error);
                               else
                                   m_statusLabel->setText(tr("Port report written to %1").arg(path));
                               emit portReportFinished(path, error);
                           });
}

void MainWindow::exportPortReport()
{
    if (!m_compare->outcome()) {
        QMessageBox::information(this, tr("Export Port Report"), needsComparison());
        return;
    }
    if (m_writingReport) {
        QMessageBox::information(this, tr("Export Port Report"), tr("A port report is being written: wait for it to finish."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Port Report"), {},
                                                      tr("PDF (*.pdf);;HTML (*.html);;JSON (*.json);;Markdown (*.md)"));
    if (!path.isEmpty())
        startPortReport(path);
}

} // namespace portolan::gui
