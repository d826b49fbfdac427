// Sides of a comparison, made runnable (see ComparisonSides.h).
#include "session/ComparisonSides.h"

#include "compare/ExternalRun.h"
#include "compare/ImportedRun.h"

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
    case SideSpec::Kind::Reference: {
        m_interpreters.push_back(std::make_unique<runtime::Interpreter>(m_loaded));
        runtime::Interpreter *interpreter = m_interpreters.back().get();
        return compare::RunSide{"reference", &m_loaded,
                                [interpreter](const runtime::NamedValues &f, const runtime::RunOptions &o) { return interpreter->run(f, o); },
                                [](const ir::Model &other, const runtime::NamedValues &f) { return runtime::Interpreter(other).run(f); }};
    }
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
    case SideSpec::Kind::Compiled:
        break;
    }
    if (spec.executor != "cpu")
        return plugged(spec, profiled);
    auto resolved = policy(spec.precision);
    if (!resolved)
        return resolved.takeError();
    runtime::cpu::CompileOptions options;
    options.precision = std::move(*resolved);
    m_cpu.push_back(std::make_unique<runtime::cpu::CpuExecutor>(m_compiled, options));
    runtime::cpu::CpuExecutor *cpu = m_cpu.back().get();
    return compare::RunSide{spec.label(), &m_compiled,
                            [cpu](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu->run(f, o); },
                            [options](const ir::Model &other, const runtime::NamedValues &f) {
                                return runtime::cpu::CpuExecutor(other, options).run(f);
                            }};
}

support::Expected<compare::RunSide> ComparisonSides::plugged(const SideSpec &spec, bool profiled)
{
    const runtime::PluggedExecutorFactory factory = runtime::findExecutor(spec.executor);
    if (!factory)
        return runtime::missingExecutor(spec.executor, m_compiled.sourcePath);
    auto resolved = policy(spec.precision);
    if (!resolved)
        return resolved.takeError();
    runtime::PluggedOptions policy;
    policy.policy = std::move(*resolved);
    auto made = factory(m_compiled, policy);
    if (!made)
        return made.takeError();
    std::shared_ptr<runtime::Executor> executor = std::move(*made);
    executor->setProfiling(profiled);
    m_plugged.push_back(executor);
    return compare::RunSide{spec.label(), &m_compiled,
                            [executor](const runtime::NamedValues &f, const runtime::RunOptions &o) { return executor->run(f, o); },
                            [factory, policy](const ir::Model &other,
                                              const runtime::NamedValues &f) -> support::Expected<runtime::NamedValues> {
                                auto again = factory(other, policy);
                                if (!again)
                                    return again.takeError();
                                return (*again)->run(f, {});
                            }};
}

} // namespace portolan::session
