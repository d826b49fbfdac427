// The checker, shape inference and the export pitfalls in one list (see ModelFindings.h).
#include "session/ModelFindings.h"

#include "analysis/ModelChecker.h"
#include "analysis/ModelValidation.h"
#include "analysis/ShapeInference.h"
#include "diagnose/ExportPitfalls.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace portolan::session {

support::Diagnostics modelFindings(const ir::Model &model, support::Diagnostics loadWarnings)
{
    const auto start = std::chrono::steady_clock::now();
    support::Diagnostics all = std::move(loadWarnings);
    // What the execution gate refuses comes first: run, compare and optimize stop on it
    const support::Diagnostics refused = analysis::validateForExecution(model);
    all.insert(all.end(), refused.begin(), refused.end());
    const support::Diagnostics checked = analysis::checkModel(model);
    all.insert(all.end(), checked.begin(), checked.end());
    for (support::Diagnostic d : analysis::inferShapes(model).findings) {
        d.severity = support::Severity::Warning;
        all.push_back(std::move(d));
    }
    const support::Diagnostics pitfalls = diagnose::findExportPitfalls(model, diagnose::listTargetProfiles().profiles);
    all.insert(all.end(), pitfalls.begin(), pitfalls.end());
    spdlog::debug("checked {} in {:.1f} ms: {} findings", model.sourcePath,
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), all.size());
    return all;
}

} // namespace portolan::session
