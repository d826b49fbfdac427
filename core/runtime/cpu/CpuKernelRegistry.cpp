// The native kernel table, from CpuKernels.def.
#include "runtime/cpu/CpuKernel.h"

#include "opset/OpVersions.h"

#include <map>
#include <utility>

namespace portolan::runtime::cpu {

#define CPU_KERNEL(domain, opType, factory) std::unique_ptr<CpuKernel> factory(const NodeBinding &, std::string &);
#include "runtime/cpu/CpuKernels.def"

CpuKernelFactory findCpuKernel(const std::string &domain, const std::string &opType, int opset)
{
    static const std::map<std::pair<std::string, std::string>, CpuKernelFactory> table{
#define CPU_KERNEL(domain, opType, factory) {{domain, opType}, &factory},
#include "runtime/cpu/CpuKernels.def"
    };
    const std::string standard = domain == "ai.onnx" ? "" : domain;
    // the native kernels implement the standard ops as opset 17 defines them
    if (standard.empty() && opset::semanticChangeAfter(opType, opset::kLibOnnxStandardOpset, opset) != 0)
        return nullptr;
    const auto it = table.find({standard, opType});
    return it == table.end() ? nullptr : it->second;
}

} // namespace portolan::runtime::cpu
