// The executor a compiled side names, made one way for every call that runs one (run, compare,
// bisect-precision): "cpu" is the compiled CPU executor, any other name one registered at start-up.
#pragma once

#include "ir/Model.h"
#include "runtime/ExecutorRegistry.h"
#include "support/Expected.h"

#include <memory>
#include <string>

namespace portolan::session {

/// The executor `name` for `model` (which must outlive it), under `options`' precision policy and
/// fallback rule; a name this build lacks is said the way `missingExecutor` says it.
support::Expected<std::unique_ptr<runtime::Executor>> makeCompiledExecutor(const std::string &name, const ir::Model &model,
                                                                           const runtime::PluggedOptions &options);

} // namespace portolan::session
