// Formatting of diagnostics for people.
#include "support/Diagnostic.h"

#include <algorithm>

namespace portolan::support {

const char *severityName(Severity severity)
{
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "error";
}

std::string Diagnostic::format() const
{
    std::string where;
    auto add = [&where](const char *what, const std::string &name) {
        if (name.empty())
            return;
        where += where.empty() ? "" : ", ";
        where += what;
        where += " '" + name + "'";
    };
    add("graph", graph);
    add("node", node);
    add("value", value);

    std::string out;
    if (!model.empty())
        out += model + ": ";
    if (!where.empty())
        out += where + ": ";
    out += message;
    return out;
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

} // namespace portolan::support
