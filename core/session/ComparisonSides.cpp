// Sides of a comparison, made runnable (see ComparisonSides.h).
#include "session/ComparisonSides.h"

#include "compare/ExternalRun.h"
#include "compare/ImportedRun.h"
#include "compare/OnnxRuntime.h"
#include "session/CompiledExecutor.h"

namespace portolan::session {

support::Expected<runtime::PrecisionPolicy> ComparisonSides::policy(const std::string &precision)
{
    if (const auto known = m_policies.find(precision); known != m_policies.end())
        return known->second;
    runtime::RunOptions run;
    run.cancel = m_request.cancel.get();
    auto resolved = resolvePrecisionPolicy(precision, m_request.lowering, m_compiled, m_request.feeds.shapes, run);
    if (resolved)
        m_policies[precision] = *resolved;
    return resolved;
}

support::Expected<compare::RunSide> ComparisonSides::make(const SideSpec &spec, bool profiled)
{
    switch (spec.kind) {
    case SideSpec::Kind::Reference:
        return compare::RunSide::of("reference", m_loaded, std::make_shared<runtime::Interpreter>(m_loaded),
                                    [](const ir::Model &other) -> support::Expected<std::unique_ptr<runtime::Executor>> {
                                        return std::unique_ptr<runtime::Executor>(std::make_unique<runtime::Interpreter>(other));
                                    });
    case SideSpec::Kind::Imported: {
        auto run = compare::readImportedRun(spec.importFrom, m_loaded);
        if (!run)
            return run.takeError();
        m_unknownImported.insert(m_unknownImported.end(), run->unknownNames.begin(), run->unknownNames.end());
        return compare::importedSide(m_loaded, std::make_shared<const compare::ImportedRun>(std::move(*run)));
    }
    case SideSpec::Kind::External: {
        const compare::ExternalCommand command{spec.command, spec.timeoutSeconds};
        if (auto st = compare::checkExternalCommand(command); !st)
            return st.error();
        return compare::externalSide(m_loaded, m_modelPath, command);
    }
    case SideSpec::Kind::OnnxRuntime: {
        auto install = compare::installOnnxRuntime(spec.timeoutSeconds);
        if (!install)
            return install.takeError();
        return compare::onnxRuntimeSide(m_loaded, m_modelPath, spec.ortLevel, *install, spec.timeoutSeconds);
    }
    case SideSpec::Kind::Compiled:
        break;
    }
    auto resolved = policy(spec.precision);
    if (!resolved)
        return resolved.takeError();
    runtime::PluggedOptions options;
    options.policy = std::move(*resolved);
    auto made = makeCompiledExecutor(spec.executor, m_compiled, options);
    if (!made)
        return made.takeError();
    std::shared_ptr<runtime::Executor> executor = std::move(*made);
    executor->setProfiling(profiled);
    m_compiledExecutors.push_back(executor);
    return compare::RunSide::of(spec.label(), m_compiled, executor,
                                [name = spec.executor, options](const ir::Model &other) { return makeCompiledExecutor(name, other, options); });
}

} // namespace portolan::session
