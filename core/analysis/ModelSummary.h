// What `portolan inspect` reports about a model: identity, interface, size, ops, groups, findings.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace portolan::analysis {

struct IoSummary {
    std::string name;
    std::string elementType;        ///< "float"; "" for non-tensor types
    std::string type;               ///< full readable type: "float[batch,3,224,224]"
    ir::Shape shape;
    std::vector<std::string> symbolicDims; ///< names of the symbolic dims (and "?" for unknown ones)
};

struct DtypeBytes {
    std::string elementType;
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
};

struct OpCount {
    std::string domain; ///< "" for ai.onnx
    std::string opType;
    std::uint64_t count = 0;
};

struct GroupSummary {
    std::string path;
    std::uint64_t nodes = 0;
};

struct ModelSummary {
    std::string path;
    std::int64_t irVersion = 0;
    std::string producerName, producerVersion, modelDomain, docString, graphName;
    std::int64_t modelVersion = 0;
    std::vector<std::pair<std::string, std::int64_t>> opsets;   ///< (domain, version)
    std::vector<std::pair<std::string, std::string>> metadata;  ///< metadata_props

    std::vector<IoSummary> inputs;   ///< graph inputs that are not initializers
    std::vector<IoSummary> outputs;

    std::uint64_t nodes = 0;               ///< in the main graph
    std::uint64_t nodesWithSubgraphs = 0;  ///< in every graph
    std::uint64_t subgraphs = 0;
    int maxSubgraphDepth = 0;
    std::vector<OpCount> opHistogram;      ///< every graph, most frequent first

    std::uint64_t initializers = 0;
    std::uint64_t initializerBytes = 0;
    std::uint64_t externalBytes = 0;       ///< of which stored as external data
    std::vector<DtypeBytes> initializersByType;

    std::vector<std::string> customDomains;   ///< imported or used domains ONNX ships no schemas for
    std::vector<OpCount> opsWithoutSchema;    ///< ops no schema (nor model-local function) describes

    std::vector<GroupSummary> topGroups;      ///< first level of the name-scope tree
    std::uint64_t groups = 0;                 ///< groups in the whole tree

    support::Diagnostics findings;            ///< load warnings, checker and shape-inference findings
};

/// Summarizes `model`; `findings` are attached as they are.
ModelSummary summarize(const ir::Model &model, support::Diagnostics findings);

} // namespace portolan::analysis
