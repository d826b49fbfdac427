// Filling a PortReport from a finished comparison, and writing it by the file's extension
// (.json, .md, .html).
#pragma once

#include "compare/Divergence.h"
#include "compare/KernelCheck.h"
#include "report/PortReport.h"
#include "runtime/cpu/CpuExecutor.h"

#include <map>
#include <string>

namespace portolan::cli {

struct ReportInputs {
    std::string modelPath;
    const ir::Model *modelA = nullptr, *modelB = nullptr;
    const compare::ComparisonResult *result = nullptr;
    const std::vector<compare::Suspect> *suspects = nullptr;
    const std::map<const compare::Suspect *, compare::KernelCheck> *kernelChecks = nullptr;
    const compare::ComparedTensor *firstDivergence = nullptr;
    std::string pipeline;
    compare::Tolerance tolerance;
    const runtime::cpu::CpuExecutor *compiled = nullptr; ///< run B's executor when it is the compiled one
};

report::PortReport buildPortReport(const ReportInputs &inputs);

/// Writes `report` as JSON, Markdown or HTML by `path`'s extension; an existing file needs `force`.
support::Status writePortReport(const report::PortReport &report, const std::string &path, bool force);

} // namespace portolan::cli
