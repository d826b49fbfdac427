// The kinds of bug a port's kernel has, planted through CompileOptions::kernelOverride: the node's
// own native kernel, built from a binding with one thing wrong.
#pragma once

#include "runtime/cpu/CpuKernel.h"

#include <memory>
#include <string>

namespace portolan::test {

/// `fault`: "epsilon" reads the node's epsilon as 0.5; "transposed-weight" swaps a convolution
/// weight's kh and kw; "scaled-weight" multiplies its constant second input (a MatMul's weight) by
/// 1.02. nullptr when the op has no native kernel.
std::unique_ptr<runtime::cpu::CpuKernel> faultyKernel(const runtime::cpu::NodeBinding &binding, const std::string &fault,
                                                      std::string &whyNot);

} // namespace portolan::test
