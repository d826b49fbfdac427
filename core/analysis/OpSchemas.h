// Operator documentation from ONNX's schema registry, resolved at the model's opset.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace onnx {
class OpSchema;
}

namespace portolan::analysis {

struct OpParameterDoc {
    std::string name;
    std::string typeStr;     ///< "T", "tensor(int64)"
    std::string description;
    std::string option;      ///< "single", "optional" or "variadic"
};

struct OpAttributeDoc {
    std::string name;
    std::string type;        ///< "INT", "FLOATS", "GRAPH", …
    std::string description;
    bool required = false;
};

struct OpTypeConstraintDoc {
    std::string name;
    std::vector<std::string> allowedTypes;
    std::string description;
};

/// What the inspector shows for an operator.
struct OpDoc {
    std::string opType;
    std::string domain;
    int sinceVersion = 0;
    bool deprecated = false;
    std::string doc;
    std::vector<OpParameterDoc> inputs;
    std::vector<OpParameterDoc> outputs;
    std::vector<OpAttributeDoc> attributes;
    std::vector<OpTypeConstraintDoc> typeConstraints;
};

/// The schema in force for (opType, domain) at `opsetVersion`; nullptr when ONNX knows none.
const onnx::OpSchema *findSchema(const std::string &opType, const std::string &domain, int opsetVersion);

/// Documentation for (opType, domain) at `opsetVersion`, or nullopt when no schema exists.
std::optional<OpDoc> opDoc(const std::string &opType, const std::string &domain, int opsetVersion);

/// True for the domains whose schemas ship with ONNX ("", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training").
bool isOnnxDomain(const std::string &domain);

} // namespace portolan::analysis
