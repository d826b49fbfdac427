// Compiled executors by name (see CompiledExecutor.h).
#include "session/CompiledExecutor.h"

#include "runtime/cpu/CpuExecutor.h"

namespace portolan::session {

support::Expected<std::unique_ptr<runtime::Executor>> makeCompiledExecutor(const std::string &name, const ir::Model &model,
                                                                           const runtime::PluggedOptions &options)
{
    if (name == "cpu") {
        runtime::cpu::CompileOptions compile;
        compile.allowFallback = options.allowFallback;
        compile.precision = options.policy;
        return std::unique_ptr<runtime::Executor>(std::make_unique<runtime::cpu::CpuExecutor>(model, std::move(compile)));
    }
    const runtime::PluggedExecutorFactory factory = runtime::findExecutor(name);
    if (!factory)
        return runtime::missingExecutor(name, model.sourcePath);
    return factory(model, options);
}

} // namespace portolan::session
