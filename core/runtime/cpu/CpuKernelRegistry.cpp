// The native kernel table, from CpuKernels.def.
#include "runtime/cpu/CpuKernel.h"

#include <map>
#include <utility>

namespace portolan::runtime::cpu {

#define CPU_KERNEL(domain, opType, factory) std::unique_ptr<CpuKernel> factory(const NodeBinding &, std::string &);
#include "runtime/cpu/CpuKernels.def"

CpuKernelFactory findCpuKernel(const std::string &domain, const std::string &opType)
{
    static const std::map<std::pair<std::string, std::string>, CpuKernelFactory> table{
#define CPU_KERNEL(domain, opType, factory) {{domain, opType}, &factory},
#include "runtime/cpu/CpuKernels.def"
    };
    const std::string standard = domain == "ai.onnx" ? "" : domain;
    const auto it = table.find({standard, opType});
    return it == table.end() ? nullptr : it->second;
}

} // namespace portolan::runtime::cpu
