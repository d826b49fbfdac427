// A finding about a model: what is wrong, where (model, graph, node, value), and how bad.
#pragma once

#include <string>
#include <vector>

namespace portolan::support {

enum class Severity { Error, Warning, Info };

/// Lower-case name of a severity ("error", "warning", "info").
const char *severityName(Severity severity);

/// One finding. Every field but `message` is optional; the more are set, the easier to act on.
struct Diagnostic {
    Severity severity = Severity::Error;
    std::string code;    ///< stable kebab-case key, e.g. "cycle", "missing-producer"
    std::string message; ///< one sentence saying what is wrong
    std::string model;   ///< file or model name
    std::string graph;   ///< graph (or subgraph path such as "main/If_0.then_branch")
    std::string node;    ///< node name, or "#index (OpType)" when unnamed
    std::string value;   ///< tensor / value name

    /// "model: graph 'g', node 'n', value 'v': message" — the form printed to users.
    std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

/// True when any diagnostic is an error.
bool hasErrors(const Diagnostics &diagnostics);

} // namespace portolan::support
