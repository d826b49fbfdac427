#include "analysis/ModelValidation.h"

#include "analysis/ElementTypeGate.h"
#include "analysis/NodeArity.h"
#include "opset/OpVersions.h"
#include "opset/PortolanOps.h"

#include <string>

namespace portolan::analysis {

namespace {

using support::Diagnostic;
using support::Severity;

Diagnostic error(const ir::Model &model, std::string code, std::string message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = std::move(code);
    d.message = std::move(message);
    d.model = model.sourcePath;
    return d;
}

void checkDeclarations(const ir::Model &model, support::Diagnostics &out)
{
    const std::int64_t ir = model.header.ir_version();
    if (ir < opset::kLowestIrVersion || ir > opset::kHighestIrVersion)
        out.push_back(error(model, "unsupported-ir-version",
                            "the model declares IR version " + std::to_string(ir) + "; Portolan supports IR " +
                                std::to_string(opset::kLowestIrVersion) + " to " + std::to_string(opset::kHighestIrVersion)));
    if (model.header.opset_import_size() == 0) {
        out.push_back(error(model, "no-opset-import",
                            "the model declares no opset_import, so no node's version can be known (ONNX requires one "
                            "from IR 3 on)"));
        return;
    }
    for (const auto &import : model.header.opset_import()) {
        const std::int64_t version = import.version();
        if (opset::isStandardDomain(import.domain()) && (version < 1 || version > opset::kHighestStandardOpset))
            out.push_back(error(model, "unsupported-opset",
                                "the model imports opset " + std::to_string(version) +
                                    " of the standard domain; Portolan supports up to opset " +
                                    std::to_string(opset::kHighestStandardOpset) +
                                    (version < 1 ? " and from opset 1" : "")));
        else if (import.domain() == opset::kPortolanDomain && version != opset::kPortolanDomainVersion)
            out.push_back(error(model, "unsupported-opset",
                                "the model imports version " + std::to_string(version) + " of " + opset::kPortolanDomain +
                                    "; this Portolan defines version " + std::to_string(opset::kPortolanDomainVersion)));
    }
}

void checkDims(const ir::Model &model, ir::GraphId graphId, support::Diagnostics &out)
{
    const ir::Graph &graph = model.graph(graphId);
    auto check = [&](ir::ValueId id, const char *role) {
        const ir::Value &value = model.value(id);
        const ir::Shape shape = value.shape();
        if (!shape.dims)
            return;
        for (const ir::Dim &dim : *shape.dims)
            if (dim.isStatic() && dim.extent() < 0) {
                Diagnostic d = error(model, "negative-dim",
                                     std::string(role) + " '" + value.name + "' has a negative dim " +
                                         std::to_string(dim.extent()) + " in its declared shape");
                d.graph = graph.name;
                d.value = value.name;
                out.push_back(std::move(d));
                return;
            }
    };
    for (const ir::ValueId v : graph.inputs)
        check(v, "input");
    for (const ir::ValueId v : graph.outputs)
        check(v, "output");
}

} // namespace

support::Diagnostics validateForExecution(const ir::Model &model)
{
    support::Diagnostics out;
    checkDeclarations(model, out);
    checkDims(model, model.mainGraph(), out);
    for (Diagnostic &d : checkNodeArity(model))
        out.push_back(std::move(d));
    for (Diagnostic &d : checkNarrowElementTypes(model))
        out.push_back(std::move(d));
    return out;
}

support::Status executionGate(const ir::Model &model)
{
    support::Diagnostics findings = validateForExecution(model);
    std::erase_if(findings, [](const Diagnostic &d) { return d.severity != Severity::Error; });
    if (findings.empty())
        return support::Status::ok();
    const std::string more = findings.size() > 1 ? " (and " + std::to_string(findings.size() - 1) + " more)" : "";
    return support::makeError("malformed-model", findings.front().format() + more);
}

} // namespace portolan::analysis
