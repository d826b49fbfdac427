// The one-page port report as data, and its writers: JSON (versioned: the source of truth),
// Markdown and self-contained HTML with a per-layer error strip. Filled from a comparison, the
// two models, the compiled executor's statistics and the diagnostics of the loaded model (target
// check, dynamic dims, findings). The PDF is rendered with Qt (views/report).
#pragma once

#include "compare/TensorMetrics.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::report {

struct ReportOutput {
    std::string name;
    bool passed = false;
    std::string verdict; ///< "equivalent", "drift" or "bug" (compare/Verdict.h)
    double maxAbs = 0, normalizedError = 0, cosine = 0, snrDb = 0;
    std::optional<double> top1, top5;
};

struct ReportSuspect {
    std::string node, opType, why, verdict;
    double error = 0;
    bool introduced = false;
};

/// One compared tensor, in run B's order: the strip chart's bars.
struct ReportLayer {
    std::string tensor, node, opType;
    double error = 0; ///< max |error| over the reference's scale
    bool passed = false;
};

/// One group of nodes the target cannot run, for one cause, with the best fix the check found.
struct ReportTargetGroup {
    std::string cause;    ///< "Op not supported", …
    std::string opType;   ///< empty for a rule of the target's (static shapes)
    std::size_t nodes = 0;
    std::string example;  ///< the first node and its exact reason
    std::string fix;      ///< the best fix in a line, with what it measured
};

/// `portolan check` against one target, in short: the port's "will it compile" half.
struct ReportTarget {
    std::string id, name, source; ///< source: the vendor document and its version
    std::size_t nodes = 0, unsupportedNodes = 0;
    std::vector<ReportTargetGroup> groups;
    std::vector<std::string> modelProblems; ///< about the model as a whole (opsets, domains)
    std::size_t fallbackPartitions = 0, crossingTensors = 0;
    std::string combinedPipeline; ///< every group's best pass fix in one pipeline; empty when none
    std::size_t unsupportedAfterCombined = 0;
};

/// One origin of dynamic dims (`portolan shapes`).
struct ReportDynamicDim {
    std::string origin;     ///< "input 'x' axis 0 ('batch')", "NonZero 'nz'"
    std::size_t valuesReached = 0;
    std::size_t staticNodes = 0; ///< reached nodes the target needs static
    std::string suggestion;
};

/// One of the nodes that took the most time on the GPU.
struct ReportKernel {
    std::string node, opType, implementation, precision;
    double milliseconds = 0;                 ///< per run
    double bandwidthShare = 0, flopsShare = 0; ///< of the device's measured peaks; 0 when not measured
};

/// Run B on a GPU: the device, its measured peaks, and where the time went.
struct ReportGpu {
    std::string device;
    double copyBytesPerSecond = 0, matmulFlopsPerSecond = 0; ///< measured; 0 when not
    double deviceMilliseconds = 0, hostMilliseconds = 0;     ///< the kernels' time, the CPU fallbacks'
    std::uint64_t transferBytes = 0;                         ///< up and down, together
    std::vector<ReportKernel> kernels;                       ///< the longest first
};

struct PortReport {
    static constexpr int kSchemaVersion = 2; ///< 2: "tolerances" is a description, outputs carry a verdict
    std::string model, modelHash, generatedBy, environment;
    std::string runA, runB, pipeline, precision;
    std::size_t nodesBefore = 0, nodesAfter = 0;
    std::map<std::string, int> opsBefore, opsAfter; ///< op histograms of the two models
    std::map<std::string, int> fallbacks;           ///< ops the compiled run left on reference kernels
    std::string tolerances; ///< compare::describeTolerances
    bool passed = false;
    std::string verdict;    ///< the outputs' worst
    std::vector<ReportOutput> outputs;
    std::string firstDivergence;                    ///< its node, or empty
    std::vector<ReportSuspect> suspects;
    std::vector<ReportLayer> layers;
    std::string heatSvg; ///< the error on the graph (report::heatThumbnailSvg); empty when not drawn
    double secondsA = 0, secondsB = 0;
    std::uint64_t arenaBytes = 0, weightBytes = 0, flops = 0;
    std::optional<ReportGpu> gpu; ///< when B ran on the CUDA executor
    /// Before anything runs: the checker, shape inference and export pitfalls on the loaded model,
    /// its dynamic dims, and (when one was asked for) the target check.
    support::Diagnostics findings;
    std::vector<ReportDynamicDim> dynamicDims;
    std::optional<ReportTarget> target;
};

std::string reportJson(const PortReport &report);
std::string reportMarkdown(const PortReport &report);
/// Where the HTML takes its pictures from: inline SVG when empty; for a renderer without SVG (Qt's
/// rich text, for the PDF) <img> URLs, `width` pixels wide, the heat thumbnail `heatHeight` tall.
struct HtmlImages {
    std::string strip, heat;
    int width = 0, heatHeight = 0;
};
/// Self-contained HTML: the strip chart and the heat thumbnail inline as SVG, or as `images`.
std::string reportHtml(const PortReport &report, const HtmlImages &images = {});
/// The per-layer error strip chart (720×140): one bar per compared tensor, log scale, red when failing.
std::string errorStripSvg(const PortReport &report);
inline constexpr int kStripWidth = 720, kStripHeight = 140;

} // namespace portolan::report
