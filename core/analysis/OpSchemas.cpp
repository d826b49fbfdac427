// Schema lookups through onnx::OpSchemaRegistry.
#include "analysis/OpSchemas.h"

#include "opset/OpVersions.h"
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

namespace portolan::analysis {

bool isOnnxDomain(const std::string &domain)
{
    return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml" || domain == "ai.onnx.preview.training";
}

const onnx::OpSchema *findSchema(const std::string &opType, const std::string &domain, int opsetVersion)
{
    opset::registerPortolanSchemas();
    const std::string registryDomain = domain == "ai.onnx" ? std::string() : domain;
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(opType, opsetVersion, registryDomain);
    // An older schema does not describe a version whose inputs or attributes changed (ReduceMean-18
    // takes its axes as an input; ReduceMean-13's schema would call that node malformed).
    if (schema && registryDomain.empty() && opset::semanticChangeAfter(opType, schema->SinceVersion(), opsetVersion))
        return nullptr;
    return schema;
}

static std::string optionName(onnx::OpSchema::FormalParameterOption option)
{
    switch (option) {
    case onnx::OpSchema::Single: return "single";
    case onnx::OpSchema::Optional: return "optional";
    case onnx::OpSchema::Variadic: return "variadic";
    }
    return "single";
}

static std::vector<OpParameterDoc> parameters(const std::vector<onnx::OpSchema::FormalParameter> &formal)
{
    std::vector<OpParameterDoc> out;
    for (const auto &p : formal)
        out.push_back({p.GetName(), p.GetTypeStr(), p.GetDescription(), optionName(p.GetOption())});
    return out;
}

std::optional<OpDoc> opDoc(const std::string &opType, const std::string &domain, int opsetVersion)
{
    const onnx::OpSchema *schema = findSchema(opType, domain, opsetVersion);
    if (!schema)
        return std::nullopt;
    OpDoc doc;
    doc.opType = schema->Name();
    doc.domain = schema->domain();
    doc.sinceVersion = schema->since_version();
    doc.deprecated = schema->Deprecated();
    doc.doc = schema->doc() ? schema->doc() : "";
    doc.inputs = parameters(schema->inputs());
    doc.outputs = parameters(schema->outputs());
    for (const auto &[name, attribute] : schema->attributes())
        doc.attributes.push_back({name, onnx::AttributeProto::AttributeType_Name(attribute.type),
                                  attribute.description, attribute.required});
    for (const auto &tc : schema->typeConstraintParams())
        doc.typeConstraints.push_back({tc.type_param_str, tc.allowed_type_strs, tc.description});
    return doc;
}

} // namespace portolan::analysis
