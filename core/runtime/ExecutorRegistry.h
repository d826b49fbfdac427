// Executors that live in optional libraries (the CUDA executor, in portolan_cuda): each registers a
// factory under a name when the program starts, so core code (the workbench's comparison) can offer
// it without depending on that library or knowing at compile time whether it was built.
#pragma once

#include "ir/Model.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/Executor.h"
#include "runtime/Precision.h"
#include "support/Expected.h"

#include <memory>
#include <optional>
#include <string>

namespace portolan::runtime {

/// How a plugged executor is made: the precision `policy` (its nodes kept at fp32 and, for int8,
/// its calibration), and whether nodes without a kernel of its own may run on the host.
struct PluggedOptions {
    PrecisionPolicy policy;
    bool allowFallback = true;
};

/// Makes an executor for `model` as `options` ask, or says why it cannot (no GPU, a precision it lacks…).
using PluggedExecutorFactory = support::Expected<std::unique_ptr<Executor>> (*)(const ir::Model &model,
                                                                                       const PluggedOptions &options);

/// What an executor says of itself for `portolan --version`: its build and the devices it sees.
using ExecutorDescriber = std::string (*)();

/// Registers `factory` as `name` ("cuda"), replacing an earlier one of that name.
void registerExecutor(const std::string &name, PluggedExecutorFactory factory, ExecutorDescriber describe = nullptr);
/// The factory registered as `name`, or nullptr when this build has none.
PluggedExecutorFactory findExecutor(const std::string &name);
/// Why `name` cannot be made in this build: "this build of Portolan has no CUDA executor (nvcc was
/// not found when it was built)" for cuda, which only a build without nvcc lacks.
support::Error missingExecutor(const std::string &name, const std::string &model);
/// The description of the executor registered as `name`; "" when none is (or it says nothing).
std::string describeExecutor(const std::string &name);

} // namespace portolan::runtime
