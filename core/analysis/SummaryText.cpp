// Text rendering of ModelSummary for a terminal.
#include "analysis/SummaryFormat.h"

#include <cstdio>

namespace portolan::analysis {

std::string humanBytes(std::uint64_t bytes)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int unit = 0;
    while (v >= 1024.0 && unit < 4) {
        v /= 1024.0;
        ++unit;
    }
    char buffer[32];
    if (unit == 0)
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buffer, sizeof buffer, "%.1f %s", v, units[unit]);
    return buffer;
}

static std::string ioLine(const IoSummary &io)
{
    std::string line = "  " + io.name + "  " + io.type;
    if (!io.symbolicDims.empty()) {
        line += "   (dynamic:";
        for (const std::string &d : io.symbolicDims)
            line += " " + d;
        line += ")";
    } else if (!io.shape.rankKnown()) {
        line += "   (dynamic: unknown rank)";
    }
    return line + "\n";
}

static std::string opName(const OpCount &op)
{
    return op.domain.empty() ? op.opType : op.domain + "::" + op.opType;
}

std::string summaryText(const ModelSummary &s)
{
    std::string out;
    out += "Model     " + s.path + "\n";
    out += "IR        version " + std::to_string(s.irVersion) + "\n";
    out += "Producer  " + (s.producerName.empty() ? "(none)" : s.producerName + " " + s.producerVersion) + "\n";
    out += "Opsets   ";
    for (const auto &[domain, version] : s.opsets)
        out += " " + (domain.empty() ? std::string("ai.onnx") : domain) + "=" + std::to_string(version);
    out += "\n";
    for (const auto &[key, value] : s.metadata)
        out += "Metadata  " + key + " = " + value + "\n";

    out += "\nInputs (" + std::to_string(s.inputs.size()) + ")\n";
    for (const IoSummary &io : s.inputs)
        out += ioLine(io);
    out += "Outputs (" + std::to_string(s.outputs.size()) + ")\n";
    for (const IoSummary &io : s.outputs)
        out += ioLine(io);

    out += "\nNodes     " + std::to_string(s.nodes) + " in the main graph";
    if (s.subgraphs)
        out += ", " + std::to_string(s.nodesWithSubgraphs) + " with " + std::to_string(s.subgraphs) +
               " subgraphs (depth " + std::to_string(s.maxSubgraphDepth) + ")";
    out += "\nWeights   " + std::to_string(s.initializers) + " initializers, " + humanBytes(s.initializerBytes);
    if (s.externalBytes)
        out += " (" + humanBytes(s.externalBytes) + " external)";
    out += "\n";
    for (const DtypeBytes &d : s.initializersByType)
        out += "            " + d.elementType + ": " + std::to_string(d.count) + " tensors, " + humanBytes(d.bytes) + "\n";

    out += "\nOperators (" + std::to_string(s.opHistogram.size()) + " types)\n";
    for (const OpCount &op : s.opHistogram) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-32s %8llu\n", opName(op).c_str(), static_cast<unsigned long long>(op.count));
        out += line;
    }
    if (!s.customDomains.empty()) {
        out += "Custom domains:";
        for (const std::string &d : s.customDomains)
            out += " " + d;
        out += "\n";
    }
    if (!s.opsWithoutSchema.empty()) {
        out += "Ops without a known schema:";
        for (const OpCount &op : s.opsWithoutSchema)
            out += " " + opName(op);
        out += "\n";
    }

    if (!s.topGroups.empty()) {
        out += "\nGroups    " + std::to_string(s.groups) + " name scopes; top level:\n";
        for (const GroupSummary &g : s.topGroups)
            out += "  " + g.path + " (" + std::to_string(g.nodes) + " nodes)\n";
    }

    out += "\nFindings  ";
    if (s.findings.empty()) {
        out += "none\n";
    } else {
        out += std::to_string(s.findings.size()) + "\n";
        for (const support::Diagnostic &d : s.findings)
            out += "  " + std::string(support::severityName(d.severity)) + ": " + d.format() + "\n";
    }
    return out;
}

} // namespace portolan::analysis
