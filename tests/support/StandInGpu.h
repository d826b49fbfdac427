// A stand-in for the CUDA executor, plugged as it plugs itself (runtime/ExecutorRegistry.h), for
// tests of what the workbench and the report do with a GPU run on machines without one: the CPU
// executor at the policy it is handed, refusing bf16 (a precision it "lacks"), and once profiling
// is on, measuring what a GPU run would: a convolution, a CPU fallback, an activation and a view
// on "Test GPU" (see standInProfile()).
#pragma once

#include "runtime/AcceleratorProfile.h"

#include <string>

namespace portolan::test {

/// Registers the stand-in as `name`.
void registerStandInGpu(const std::string &name);

/// What the stand-in reports of every profiled run.
runtime::AcceleratorProfile standInProfile();

} // namespace portolan::test
