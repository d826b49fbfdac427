#include "opset/OpVersions.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace portolan::opset {

namespace {

enum class Change { New, Types, Semantics };

struct Version {
    int since;
    Change change;
};

const std::unordered_map<std::string, std::vector<Version>> &laterVersions()
{
    static const auto table = [] {
        std::unordered_map<std::string, std::vector<Version>> t;
#define PORTOLAN_OP_VERSION(op, since, change) t[#op].push_back({since, Change::change});
#include "opset/StandardOpVersions.def"
#undef PORTOLAN_OP_VERSION
        for (auto &[op, versions] : t)
            std::sort(versions.begin(), versions.end(), [](const Version &a, const Version &b) { return a.since < b.since; });
        return t;
    }();
    return table;
}

int libOnnxSinceVersion(const std::string &opType, int opset)
{
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, std::min(opset, kLibOnnxStandardOpset), std::string());
    return schema ? schema->SinceVersion() : 0;
}

} // namespace

bool isStandardDomain(std::string_view domain)
{
    return domain.empty() || domain == "ai.onnx";
}

int standardSinceVersion(const std::string &opType, int opset)
{
    int since = libOnnxSinceVersion(opType, opset);
    if (const auto it = laterVersions().find(opType); it != laterVersions().end())
        for (const Version &v : it->second)
            if (v.since <= opset)
                since = std::max(since, v.since);
    return since;
}

int semanticChangeAfter(const std::string &opType, int implemented, int opset)
{
    const auto it = laterVersions().find(opType);
    if (it == laterVersions().end())
        return 0;
    int newest = 0;
    for (const Version &v : it->second)
        if (v.since > implemented && v.since <= opset && v.change != Change::Types)
            newest = v.since;
    return newest;
}

bool isKnownStandardOp(const std::string &opType)
{
    return libOnnxSinceVersion(opType, kLibOnnxStandardOpset) > 0 || laterVersions().contains(opType);
}

std::string describeOpVersion(std::string_view domain, const std::string &opType, int opset)
{
    const std::string at = " (opset " + std::to_string(opset) + ")";
    if (!isStandardDomain(domain))
        return std::string(domain) + "::" + opType + at;
    const int since = standardSinceVersion(opType, opset);
    return since > 0 ? opType + "-" + std::to_string(since) + at : opType + at;
}

} // namespace portolan::opset
