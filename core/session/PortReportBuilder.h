// Filling a PortReport from a finished comparison, and writing it by the file's extension
// (.json, .md, .html; .pdf through a renderer the caller hands in, the GUI library's).
#pragma once

#include "compare/Divergence.h"
#include "compare/KernelCheck.h"
#include "diagnose/DynamicShapes.h"
#include "diagnose/TargetCheck.h"
#include "report/PortReport.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/cpu/CpuExecutor.h"

#include <functional>
#include <map>
#include <string>

namespace portolan::session {

struct ReportInputs {
    std::string modelPath;
    const ir::Model *modelA = nullptr, *modelB = nullptr;
    const compare::ComparisonResult *result = nullptr;
    const std::vector<compare::Suspect> *suspects = nullptr;
    const std::map<const compare::Suspect *, compare::KernelCheck> *kernelChecks = nullptr;
    const compare::ComparedTensor *firstDivergence = nullptr;
    std::string pipeline;
    std::string tolerances; ///< compare::describeTolerances of the comparison
    const runtime::cpu::PlanFigures *figures = nullptr; ///< run B's executor's, when it is the compiled one
    /// The loaded model's diagnostics: its findings, its dynamic dims and, when asked for, a target check.
    const support::Diagnostics *findings = nullptr;
    const diagnose::ShapeAnalysis *shapes = nullptr;
    const diagnose::TargetCheck *target = nullptr;
    /// Run B's profile when it ran on a GPU (the CUDA executor): memory, fallbacks and where the time went.
    const runtime::AcceleratorProfile *accelerator = nullptr;
};

report::PortReport buildPortReport(const ReportInputs &inputs);

/// Writes a report as PDF (views::writeReportPdf: core has no renderer of its own).
using PdfWriter = std::function<support::Status(const report::PortReport &report, const std::string &path, bool force)>;

/// Writes `report` as JSON, Markdown, HTML or (with `pdf`) PDF by `path`'s extension; an existing file
/// needs `force`.
support::Status writePortReport(const report::PortReport &report, const std::string &path, bool force,
                                const PdfWriter &pdf = {});

} // namespace portolan::session
