// Pipelines as text: "infer-shapes,fold-constants,fuse-layer-norm{max-epsilon=1e-3},eliminate-dead".
// Options go in braces after the pass name, separated by spaces (MLIR's form), so a value may hold
// commas ("freeze-shapes{input=x:1x3,y:1x8}"). Parsing then printing gives back the same text.
#pragma once

#include "support/Expected.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace portolan::passes {

/// One pass of a pipeline with the options written for it, in the order written.
struct PassInvocation {
    std::string name;
    std::vector<std::pair<std::string, std::string>> options;

    /// "name" or "name{key=value key2=value2}".
    std::string str() const;
};

struct Pipeline {
    std::vector<PassInvocation> passes;

    std::string str() const;
};

/// Parses pipeline text and checks every pass name and option against the registry; an unknown
/// name or option is an error listing the valid ones.
support::Expected<Pipeline> parsePipeline(std::string_view text);

/// The pipeline of an optimization level: 1 cleanup, 2 cleanup + fusions, 3 adds precision
/// lowering to `precision` ("fp16", "bf16", "int8"; level 3 without one is level 2).
support::Expected<Pipeline> presetPipeline(int level, const std::string &precision = {});

} // namespace portolan::passes
