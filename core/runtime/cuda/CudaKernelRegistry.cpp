// The CUDA kernel table, from CudaKernels.def.
#include "runtime/cuda/CudaKernel.h"

#include "opset/OpVersions.h"

#include "ir/Type.h"

#include <map>
#include <utility>

namespace portolan::runtime::cuda {

#define CUDA_KERNEL(domain, opType, factory) \
    std::unique_ptr<CudaKernel> factory(const NodeBinding &, DeviceSetup &, std::string &);
#include "runtime/cuda/CudaKernels.def"

CudaKernelFactory findCudaKernel(const std::string &domain, const std::string &opType, int opset)
{
    static const std::map<std::pair<std::string, std::string>, CudaKernelFactory> table{
#define CUDA_KERNEL(domain, opType, factory) {{domain, opType}, &factory},
#include "runtime/cuda/CudaKernels.def"
    };
    const std::string standard = domain == "ai.onnx" ? "" : domain;
    // the native kernels implement the standard ops as opset 17 defines them
    if (standard.empty() && opset::semanticChangeAfter(opType, opset::kLibOnnxStandardOpset, opset) != 0)
        return nullptr;
    const auto it = table.find({standard, opType});
    return it == table.end() ? nullptr : it->second;
}

bool allFloat32(const NodeBinding &binding, std::string &whyNot)
{
    auto check = [&](const std::vector<BoundTensor> &tensors, const char *kind) {
        for (std::size_t k = 0; k < tensors.size(); ++k)
            if (tensors[k].present && tensors[k].dataType != onnx::TensorProto::FLOAT) {
                whyNot = std::string(kind) + " " + std::to_string(k) + " is " + ir::dataTypeName(tensors[k].dataType) +
                         "; the CUDA kernels take float32";
                return false;
            }
        return true;
    };
    return check(binding.inputs, "input") && check(binding.outputs, "output");
}

} // namespace portolan::runtime::cuda
