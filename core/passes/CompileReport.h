// Renderings of a pipeline run for the CLI, the GUI's pass log and the port report: JSON for scripts
// (schema: docs/optimize-json.md), text for people.
#pragma once

#include "passes/PassManager.h"

#include <map>
#include <string>

namespace portolan::passes {

/// Version of the JSON layout; bumped on any incompatible change.
inline constexpr int kOptimizeJsonSchemaVersion = 1;

/// Live main-graph nodes by op ("Conv", "ai.portolan::FusedConv").
std::map<std::string, int> opHistogram(const ir::Model &model);

struct CompileReportOptions {
    std::string modelPath;
    std::string outputPath;
    std::string pipeline;
    bool statistics = false;    ///< text: print each pass's statistics
    bool matchFailures = false; ///< text: print each pass's near-misses ("why not fused")
};

/// The layer a rewrite touched: the deepest name scope of the nodes it removed (of those it
/// created when it removed none), "/encoder/layer.3/attn"; "" when the names carry no shared scope.
std::string rewriteScope(const ir::Model &model, const RewriteRecord &rewrite);

std::string compileReportJson(const CompileResult &result, const CompileReportOptions &options);
std::string compileReportText(const CompileResult &result, const CompileReportOptions &options);

/// True when every pass that ran its numeric check stayed within tolerance.
bool numericsWithinTolerance(const CompileResult &result);

} // namespace portolan::passes
