// Registration of the standard operator versions of opsets 18–27 in libonnx's schema registry.
#include "opset/StandardSchemas.h"

#include "opset/OpVersions.h"

#include <onnx/defs/data_type_utils.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

namespace portolan::opset {

namespace {

enum class Change { New, Types, Semantics };

struct VersionRow {
    const char *op;
    int since;
    Change change;
};

constexpr VersionRow kVersions[] = {
#define PORTOLAN_OP_VERSION(op, since, change) {#op, since, Change::change},
#include "opset/StandardOpVersions.def"
#undef PORTOLAN_OP_VERSION
};

struct ConstraintRow {
    const char *op;
    int since;
    const char *name;
    const char *types;
};

constexpr ConstraintRow kConstraints[] = {
#define PORTOLAN_TYPE_CONSTRAINT(op, since, name, types) {#op, since, name, types},
#include "opset/StandardTypeConstraints.def"
#undef PORTOLAN_TYPE_CONSTRAINT
};

/// Whether libonnx 1.12 can parse a type string ("tensor(float8e4m3fn)" it cannot).
bool libOnnxCanName(const std::string &type)
{
    try {
        onnx::Utils::DataTypeUtils::ToType(type);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

std::vector<std::string> splitTypes(const char *types)
{
    std::vector<std::string> out;
    std::string current;
    for (const char *c = types; *c; ++c) {
        if (*c == ' ') {
            if (!current.empty())
                out.push_back(std::move(current));
            current.clear();
        } else {
            current += *c;
        }
    }
    if (!current.empty())
        out.push_back(std::move(current));
    return out;
}

/// The type lists ONNX's Changelog gives op-`since`, reduced to what libonnx can name.
std::map<std::string, std::vector<std::string>> nameableConstraints(const std::string &op, int since)
{
    std::map<std::string, std::vector<std::string>> out;
    for (const ConstraintRow &row : kConstraints) {
        if (op != row.op || since != row.since)
            continue;
        std::vector<std::string> &types = out[row.name];
        for (std::string &type : splitTypes(row.types))
            if (libOnnxCanName(type))
                types.push_back(std::move(type));
    }
    return out;
}

/// `base` again under since-version `since`, its type lists those of the new version. libonnx cannot
/// widen a schema's constraints in place, so the schema is rebuilt from its parts.
onnx::OpSchema widenedCopy(const onnx::OpSchema &base, int since)
{
    const auto constraints = nameableConstraints(base.Name(), since);
    onnx::OpSchema s;
    s.SetName(base.Name()).SetDomain(base.domain()).SinceVersion(since).SetLocation(__FILE__, __LINE__);
    std::string doc = base.doc() ? base.doc() : "";
    s.SetDoc("Version " + std::to_string(since) + " accepts more element types than version " +
             std::to_string(base.SinceVersion()) + "; it computes the same.\n\n" + doc);
    // A type list the new version adds as a parameter (QLinearMatMul-21's TS) replaces a fixed type
    // of the base ("tensor(float)" scales) that it contains.
    std::vector<std::string> addedParams;
    for (const auto &[name, types] : constraints)
        if (!types.empty() && std::none_of(base.typeConstraintParams().begin(), base.typeConstraintParams().end(),
                                           [&name = name](const auto &param) { return param.type_param_str == name; }))
            addedParams.push_back(name);
    const auto typeOf = [&](const std::string &typeStr) {
        for (const std::string &name : addedParams) {
            const auto &types = constraints.at(name);
            if (std::find(types.begin(), types.end(), typeStr) != types.end())
                return name;
        }
        return typeStr;
    };
    for (std::size_t i = 0; i < base.inputs().size(); ++i) {
        const auto &p = base.inputs()[i];
        s.Input(static_cast<int>(i), p.GetName(), p.GetDescription(), typeOf(p.GetTypeStr()), p.GetOption(),
                p.GetIsHomogeneous(), p.GetMinArity(), p.GetDifferentiationCategory());
    }
    for (std::size_t i = 0; i < base.outputs().size(); ++i) {
        const auto &p = base.outputs()[i];
        s.Output(static_cast<int>(i), p.GetName(), p.GetDescription(), typeOf(p.GetTypeStr()), p.GetOption(),
                 p.GetIsHomogeneous(), p.GetMinArity(), p.GetDifferentiationCategory());
    }
    for (const auto &[name, attribute] : base.attributes())
        s.Attr(attribute);
    for (const auto &param : base.typeConstraintParams()) {
        const auto it = constraints.find(param.type_param_str);
        const bool useNewList = it != constraints.end() && !it->second.empty();
        s.TypeConstraint(param.type_param_str, useNewList ? it->second : param.allowed_type_strs, param.description);
    }
    for (const std::string &name : addedParams)
        s.TypeConstraint(name, constraints.at(name), "types new in version " + std::to_string(since));
    if (base.has_type_and_shape_inference_function())
        s.TypeAndShapeInferenceFunction(base.GetTypeAndShapeInferenceFunction());
    if (base.has_data_propagation_function())
        s.PartialDataPropagationFunction(base.GetDataPropagationFunction());
    return s;
}

/// The schemas written out for the New and Semantics versions, by (op, since).
std::map<std::pair<std::string, int>, onnx::OpSchema> &writtenSchemas()
{
    static std::map<std::pair<std::string, int>, onnx::OpSchema> schemas = [] {
        std::map<std::pair<std::string, int>, onnx::OpSchema> out;
        for (auto family : {tensorOpSchemas, visionOpSchemas, conversionOpSchemas, textAndOptionalOpSchemas,
                            transformerOpSchemas})
            for (onnx::OpSchema &schema : family()) {
                auto key = std::make_pair(schema.Name(), schema.SinceVersion());
                out.emplace(std::move(key), std::move(schema));
            }
        return out;
    }();
    return schemas;
}

void widenStandardRange()
{
    // libonnx has no call to raise a standard domain's version range; the singleton itself is not
    // const, so writing through its map is defined behaviour.
    using RangeMap = std::unordered_map<std::string, std::pair<int, int>>;
    auto &ranges = const_cast<RangeMap &>(onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map());
    ranges[""] = {1, kHighestStandardOpset};
}

} // namespace

void registerStandardSchemas()
{
    static std::once_flag once;
    std::call_once(once, [] {
        // Loads libonnx's own schemas first: they register lazily, on the first lookup.
        (void)onnx::OpSchemaRegistry::Schema("Add", kLibOnnxStandardOpset, "");
        widenStandardRange();
        auto &written = writtenSchemas();
        // In version order, so a Types version copies the newest schema registered before it.
        std::vector<VersionRow> rows(std::begin(kVersions), std::end(kVersions));
        std::stable_sort(rows.begin(), rows.end(), [](const VersionRow &a, const VersionRow &b) { return a.since < b.since; });
        for (const VersionRow &row : rows) {
            if (const auto it = written.find({row.op, row.since}); it != written.end()) {
                onnx::OpSchema schema = it->second;
                onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(schema);
                continue;
            }
            if (row.change != Change::Types)
                continue; // missingStandardSchemas() reports it
            const onnx::OpSchema *previous = onnx::OpSchemaRegistry::Schema(row.op, row.since - 1, "");
            if (previous == nullptr)
                continue;
            onnx::OpSchema schema = widenedCopy(*previous, row.since);
            onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(schema);
        }
    });
}

std::optional<std::vector<std::string>> standardTypeConstraint(const std::string &op, int since, const std::string &name)
{
    for (const ConstraintRow &row : kConstraints)
        if (row.since == since && op == row.op && name == row.name)
            return splitTypes(row.types);
    return std::nullopt;
}

std::vector<std::string> missingStandardSchemas()
{
    registerStandardSchemas();
    std::vector<std::string> missing;
    for (const VersionRow &row : kVersions) {
        const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(row.op, row.since, "");
        if (schema == nullptr || schema->SinceVersion() != row.since)
            missing.push_back(std::string(row.op) + "-" + std::to_string(row.since));
    }
    return missing;
}

} // namespace portolan::opset
