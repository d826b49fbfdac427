#include "runtime/reference/AttributeGuard.h"

#include "analysis/OpSchemas.h"
#include "opset/OpVersions.h"

#include <onnx/defs/schema.h>

namespace portolan::runtime {

namespace {

template <typename Repeated>
std::string listText(const Repeated &values)
{
    std::string out = "[";
    for (const auto &v : values) {
        if (out.size() > 1)
            out += ", ";
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
            out += "'" + v + "'";
        else
            out += std::to_string(v);
    }
    return out + "]";
}

std::string valueText(const onnx::AttributeProto &a)
{
    switch (a.type()) {
    case onnx::AttributeProto::INT: return std::to_string(a.i());
    case onnx::AttributeProto::FLOAT: return std::to_string(a.f());
    case onnx::AttributeProto::STRING: return "'" + a.s() + "'";
    case onnx::AttributeProto::INTS: return listText(a.ints());
    case onnx::AttributeProto::FLOATS: return listText(a.floats());
    case onnx::AttributeProto::STRINGS: return listText(a.strings());
    default: return "a " + onnx::AttributeProto::AttributeType_Name(a.type()) + " value";
    }
}

template <typename Repeated>
bool sameList(const Repeated &a, const Repeated &b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// Whether the node's value is the schema's default (an attribute without a default never is).
bool holdsDefault(const onnx::AttributeProto &value, const onnx::AttributeProto &fallback)
{
    if (fallback.type() == onnx::AttributeProto::UNDEFINED || value.type() != fallback.type())
        return false;
    switch (value.type()) {
    case onnx::AttributeProto::INT: return value.i() == fallback.i();
    case onnx::AttributeProto::FLOAT: return value.f() == fallback.f();
    case onnx::AttributeProto::STRING: return value.s() == fallback.s();
    case onnx::AttributeProto::INTS: return sameList(value.ints(), fallback.ints());
    case onnx::AttributeProto::FLOATS: return sameList(value.floats(), fallback.floats());
    case onnx::AttributeProto::STRINGS: return sameList(value.strings(), fallback.strings());
    default: return false;
    }
}

} // namespace

std::optional<std::string> ignoredAttribute(const KernelContext &ctx)
{
    const std::vector<const ir::Attribute *> unread = ctx.unreadAttributes();
    if (unread.empty())
        return std::nullopt;
    const ir::Node &node = ctx.node();
    const onnx::OpSchema *schema = analysis::findSchema(node.opType, node.domain, ctx.opset());
    for (const ir::Attribute *a : unread) {
        if (schema) {
            const auto &declared = schema->attributes();
            const auto it = declared.find(a->name());
            if (it != declared.end() && holdsDefault(a->proto, it->second.default_value))
                continue;
        }
        return a->name() + " = " + valueText(a->proto);
    }
    return std::nullopt;
}

support::Status checkAttributesHonoured(const KernelContext &ctx, const std::string &kernel)
{
    if (const auto ignored = ignoredAttribute(ctx))
        return ctx.error("attribute " + *ignored + " is not implemented by " + kernel + " for " +
                         opset::describeOpVersion(ctx.node().domain, ctx.node().opType, ctx.opset()) +
                         ", which would compute as if it were absent");
    return support::Status::ok();
}

} // namespace portolan::runtime
