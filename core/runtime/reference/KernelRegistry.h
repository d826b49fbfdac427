// Reference kernels by (domain, op type, since-version), as listed in Kernels.def.
#pragma once

#include "runtime/KernelContext.h"

#include <string>

namespace portolan::runtime {

/// The kernel for `opType` in `domain` at `opset` (the newest registration not newer than it), or nullptr.
KernelFunction findReferenceKernel(const std::string &domain, const std::string &opType, int opset);

/// Every (domain, op type) with a reference kernel, for `portolan conform`'s tables and docs.
std::vector<std::pair<std::string, std::string>> referenceKernelOps();

} // namespace portolan::runtime
