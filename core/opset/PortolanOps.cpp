// Registration of the ai.portolan domain and its schemas, once per process.
#include "opset/PortolanOps.h"

#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>

#include <mutex>

namespace portolan::opset {

void registerPortolanSchemas()
{
    static std::once_flag once;
    std::call_once(once, [] {
        registerStandardSchemas();
        hardenLibOnnxInference();
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().AddDomainToVersion(
            kPortolanDomain, kPortolanDomainVersion, kPortolanDomainVersion);
        registerFusedLinearSchemas();
        registerFusedTransformerSchemas();
        registerActivationSchemas();
    });
}

} // namespace portolan::opset
