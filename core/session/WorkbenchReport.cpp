// Workbench::report: the port report assembled from what it is asked for — a comparison made here,
// the model's findings and dynamic dims, a target check — never from what a window last showed.
#include "session/Workbench.h"

namespace portolan::session {

support::Expected<report::PortReport> Workbench::report(const ComparisonOutcome &outcome, const ReportRequest &request)
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (outcome.loaded != m_model)
        return support::makeError("bad-usage", "the comparison was made on another model than the one open");
    // The report's "before it runs" half judges the model as loaded: the file the target's compiler is handed.
    diagnose::ShapeOptions shapeOptions;
    shapeOptions.target = request.target;
    auto shapes = diagnose::analyzeShapes(*m_model, shapeOptions);
    if (!shapes)
        return shapes.takeError();
    std::optional<diagnose::TargetCheck> check;
    if (request.target)
        check = diagnose::checkTarget(*m_model, *request.target);
    const auto kernelChecks = compare::checksBySuspect(outcome.suspects, outcome.kernelChecks);
    const ReportInputs inputs{m_model->sourcePath,
                              outcome.modelA,
                              outcome.modelB,
                              &outcome.result,
                              &outcome.suspects,
                              &kernelChecks,
                              outcome.firstDivergence,
                              outcome.pipelineLabel,
                              outcome.request.toleranceText(),
                              outcome.figures ? &*outcome.figures : nullptr,
                              &findings(),
                              &*shapes,
                              check ? &*check : nullptr,
                              outcome.accelerator ? &*outcome.accelerator : nullptr};
    report::PortReport built = buildPortReport(inputs);
    if (auto st = writePortReport(built, request.outputPath, request.overwrite, request.pdf); !st)
        return st.error();
    return built;
}

} // namespace portolan::session
