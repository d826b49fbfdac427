#include "diagnose/TargetProfile.h"

#include "ir/Type.h"

#include <nlohmann/json.hpp>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace portolan::diagnose {

namespace fs = std::filesystem;
using nlohmann::json;

std::string OpsetRange::str() const
{
    if (max == INT_MAX)
        return std::to_string(min) + "+";
    if (min <= 1)
        return "≤ " + std::to_string(max);
    if (min == max)
        return std::to_string(min);
    return std::to_string(min) + "–" + std::to_string(max);
}

const char *dynamicShapesName(DynamicShapes support)
{
    switch (support) {
    case DynamicShapes::Supported: return "supported";
    case DynamicShapes::Profile: return "profile";
    case DynamicShapes::Static: return "static";
    }
    return "supported";
}

const OpSupport *TargetProfile::op(const std::string &domain, const std::string &opType) const
{
    const auto it = ops.find({domain == "ai.onnx" ? std::string() : domain, opType});
    return it == ops.end() ? nullptr : &it->second;
}

bool TargetProfile::knowsDomain(const std::string &domain) const
{
    const std::string d = domain == "ai.onnx" ? std::string() : domain;
    if (opsets.contains(d))
        return true;
    return std::any_of(ops.begin(), ops.end(), [&](const auto &entry) { return entry.first.first == d; });
}

std::string attributeValueText(double number)
{
    if (std::isfinite(number) && number == std::trunc(number) && std::fabs(number) < 1e15)
        return std::to_string(static_cast<long long>(number));
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    return std::string(buffer, result.ptr);
}

namespace {

/// Thrown while parsing, caught at the top: the path of the key and what is wrong with it.
struct ProfileError {
    std::string where, what;
};

[[noreturn]] void fail(const std::string &where, const std::string &what) { throw ProfileError{where, what}; }

std::string domainOf(const std::string &name) { return name == "ai.onnx" ? std::string() : name; }

int elementTypeNamed(const std::string &name, const std::string &where)
{
    for (int type = onnx::TensorProto::FLOAT; type <= onnx::TensorProto::BFLOAT16; ++type)
        if (ir::dataTypeName(type) == name)
            return type;
    fail(where, "unknown element type '" + name + "' (ONNX names: float, float16, bfloat16, int8, int64, bool, …)");
}

std::vector<int> elementTypes(const json &list, const std::string &where)
{
    if (!list.is_array())
        fail(where, "must be a list of element type names");
    std::vector<int> types;
    for (const json &item : list) {
        if (!item.is_string())
            fail(where, "must be a list of element type names");
        types.push_back(elementTypeNamed(item.get<std::string>(), where));
    }
    return types;
}

int integerAt(const json &object, const char *key, const std::string &where)
{
    const json &v = object.at(key);
    if (!v.is_number_integer())
        fail(where + "." + key, "must be an integer");
    return v.get<int>();
}

OpsetRange opsetRange(const json &object, const std::string &where)
{
    if (!object.is_object())
        fail(where, "must be an object with 'min' and/or 'max'");
    OpsetRange range;
    for (const auto &[key, v] : object.items()) {
        if (key == "min")
            range.min = integerAt(object, "min", where);
        else if (key == "max")
            range.max = integerAt(object, "max", where);
        else
            fail(where + "." + key, "unknown key (expected 'min' or 'max')");
    }
    if (range.min > range.max)
        fail(where, "min " + std::to_string(range.min) + " is above max " + std::to_string(range.max));
    return range;
}

std::string valueText(const json &v, const std::string &where)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number())
        return attributeValueText(v.get<double>());
    fail(where, "values must be strings or numbers");
}

std::vector<std::string> valueList(const json &list, const std::string &where)
{
    if (!list.is_array())
        fail(where, "must be a list of values");
    std::vector<std::string> values;
    for (const json &item : list)
        values.push_back(valueText(item, where));
    return values;
}

AttributeConstraint attributeConstraint(const json &object, const std::string &where)
{
    if (!object.is_object())
        fail(where, "must be an object with 'in', 'notIn', 'min' or 'max'");
    AttributeConstraint c;
    for (const auto &[key, v] : object.items()) {
        if (key == "in")
            c.in = valueList(v, where + ".in");
        else if (key == "notIn")
            c.notIn = valueList(v, where + ".notIn");
        else if (key == "min" || key == "max") {
            if (!v.is_number())
                fail(where + "." + key, "must be a number");
            (key == "min" ? c.min : c.max) = v.get<double>();
        } else
            fail(where + "." + key, "unknown key (expected in, notIn, min or max)");
    }
    return c;
}

std::size_t inputIndex(const std::string &key, const std::string &where)
{
    std::size_t index = 0;
    const auto result = std::from_chars(key.data(), key.data() + key.size(), index);
    if (result.ec != std::errc() || result.ptr != key.data() + key.size() || index > 64)
        fail(where, "input keys are input indices (\"0\", \"1\", …), not '" + key + "'");
    return index;
}

InputConstraint inputConstraint(const json &object, const std::string &where)
{
    if (!object.is_object())
        fail(where, "must be an object with 'dtypes' and/or 'constant'");
    InputConstraint c;
    for (const auto &[key, v] : object.items()) {
        if (key == "dtypes")
            c.dtypes = elementTypes(v, where + ".dtypes");
        else if (key == "constant") {
            if (!v.is_boolean())
                fail(where + ".constant", "must be true or false");
            c.constant = v.get<bool>();
        } else
            fail(where + "." + key, "unknown key (expected dtypes or constant)");
    }
    return c;
}

int rankLimit(const json &v, const std::string &where)
{
    if (!v.is_number_integer() || v.get<long long>() < 0)
        fail(where, "must be a non-negative integer");
    return v.get<int>();
}

OpSupport opSupport(const std::string &key, const json &object, const std::string &where)
{
    if (!object.is_object())
        fail(where, "must be an object of constraints ({} for none)");
    OpSupport op;
    const auto colon = key.rfind(':');
    op.domain = colon == std::string::npos ? std::string() : domainOf(key.substr(0, colon));
    op.opType = colon == std::string::npos ? key : key.substr(colon + 1);
    if (op.opType.empty())
        fail(where, "the op type is empty");
    for (const auto &[name, v] : object.items()) {
        const std::string at = where + "." + name;
        if (name == "opsets")
            op.opsets = opsetRange(v, at);
        else if (name == "dtypes")
            op.dtypes = elementTypes(v, at);
        else if (name == "inputs") {
            if (!v.is_object())
                fail(at, "must be an object keyed by input index");
            for (const auto &[index, c] : v.items())
                op.inputs[inputIndex(index, at)] = inputConstraint(c, at + "." + index);
        } else if (name == "attributes") {
            if (!v.is_object())
                fail(at, "must be an object keyed by attribute name");
            for (const auto &[attribute, c] : v.items())
                op.attributes[attribute] = attributeConstraint(c, at + "." + attribute);
        } else if (name == "staticShapes") {
            if (!v.is_boolean())
                fail(at, "must be true or false");
            op.staticShapes = v.get<bool>();
        } else if (name == "maxRank")
            op.maxRank = rankLimit(v, at);
        else if (name == "note") {
            if (!v.is_string())
                fail(at, "must be a string");
            op.note = v.get<std::string>();
        } else
            fail(at, "unknown key (expected opsets, dtypes, inputs, attributes, staticShapes, maxRank or note)");
    }
    return op;
}

std::string requiredString(const json &object, const char *key, const std::string &where)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string() || it->get<std::string>().empty())
        fail(where.empty() ? key : where + "." + key, "is required (a non-empty string)");
    return it->get<std::string>();
}

TargetProfile profileFrom(const json &root)
{
    if (!root.is_object())
        fail("(top level)", "must be a JSON object");
    if (root.value("format", std::string()) != "portolan-target/1")
        fail("format", "must be \"portolan-target/1\"");
    TargetProfile p;
    p.id = requiredString(root, "id", "");
    p.name = requiredString(root, "name", "");
    if (!root.contains("source") || !root["source"].is_object())
        fail("source", "is required: the vendor document the profile was written from (document, version, url)");
    p.source.document = requiredString(root["source"], "document", "source");
    p.source.version = requiredString(root["source"], "version", "source");
    p.source.url = root["source"].value("url", std::string());
    static const std::vector<std::string> known{"format", "id",      "name",          "source", "opsets",
                                                "dtypes", "maxRank", "dynamicShapes", "ops",    "notes", "expandsFunctions"};
    for (const auto &[key, v] : root.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            fail(key, "unknown key");
        if (key == "opsets") {
            if (!v.is_object())
                fail(key, "must be an object keyed by domain");
            for (const auto &[domain, range] : v.items())
                p.opsets[domainOf(domain)] = opsetRange(range, "opsets." + domain);
        } else if (key == "dtypes")
            p.dtypes = elementTypes(v, key);
        else if (key == "maxRank")
            p.maxRank = rankLimit(v, key);
        else if (key == "notes") {
            if (!v.is_string())
                fail(key, "must be a string");
            p.notes = v.get<std::string>();
        } else if (key == "expandsFunctions") {
            if (!v.is_boolean())
                fail(key, "must be true or false");
            p.expandsFunctions = v.get<bool>();
        } else if (key == "dynamicShapes") {
            const std::string s = v.is_string() ? v.get<std::string>() : std::string();
            if (s == "supported")
                p.dynamicShapes = DynamicShapes::Supported;
            else if (s == "profile")
                p.dynamicShapes = DynamicShapes::Profile;
            else if (s == "static")
                p.dynamicShapes = DynamicShapes::Static;
            else
                fail(key, "must be \"supported\", \"profile\" or \"static\"");
        } else if (key == "ops") {
            if (!v.is_object())
                fail(key, "must be an object keyed by op type");
            for (const auto &[opKey, constraints] : v.items()) {
                OpSupport op = opSupport(opKey, constraints, "ops." + opKey);
                p.ops[{op.domain, op.opType}] = std::move(op);
            }
        }
    }
    if (p.ops.empty())
        fail("ops", "lists no op: a target supports at least one");
    return p;
}

fs::path executableDirectory()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

} // namespace

support::Expected<TargetProfile> parseTargetProfile(std::string_view text, const std::string &origin)
{
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error &e) {
        return support::makeError("bad-target-profile", "target profile " + origin + " is not valid JSON: " + e.what());
    }
    try {
        return profileFrom(root);
    } catch (const ProfileError &e) {
        return support::makeError("bad-target-profile", "target profile " + origin + ": '" + e.where + "' " + e.what);
    } catch (const json::exception &e) { // a value of the wrong JSON type deep inside
        return support::makeError("bad-target-profile", "target profile " + origin + ": " + e.what());
    }
}

support::Expected<TargetProfile> loadTargetProfile(const std::string &path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec)
        return support::makeError("unreadable-target-profile", "cannot read target profile " + path + ": " + ec.message());
    if (size > 16u << 20) // profiles are a few hundred ops; a huge file is not one
        return support::makeError("bad-target-profile", "target profile " + path + " is " + std::to_string(size >> 20) +
                                                            " MiB; profiles are small JSON files");
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in)
        return support::makeError("unreadable-target-profile", "cannot read target profile " + path);
    auto profile = parseTargetProfile(text.str(), path);
    if (profile)
        profile->path = path;
    return profile;
}

std::vector<std::string> targetSearchPath()
{
    std::vector<std::string> path;
    if (const char *env = std::getenv("PORTOLAN_TARGETS")) {
        std::stringstream list(env);
        for (std::string dir; std::getline(list, dir, ':');)
            if (!dir.empty())
                path.push_back(dir);
    }
    if (const fs::path exe = executableDirectory(); !exe.empty())
        path.push_back((exe.parent_path() / "share" / "portolan" / "targets").string());
#ifdef PORTOLAN_SOURCE_TARGETS_DIR
    path.push_back(PORTOLAN_SOURCE_TARGETS_DIR);
#endif
    return path;
}

support::Expected<TargetProfile> findTargetProfile(const std::string &target, const std::vector<std::string> &searchPath)
{
    if (target.ends_with(".json") || target.find('/') != std::string::npos)
        return loadTargetProfile(target);
    for (const std::string &dir : searchPath) {
        const fs::path file = fs::path(dir) / (target + ".json");
        std::error_code ec;
        if (fs::is_regular_file(file, ec))
            return loadTargetProfile(file.string());
    }
    std::string known;
    for (const TargetProfile &p : listTargetProfiles(searchPath).profiles)
        known += (known.empty() ? "" : ", ") + p.id;
    return support::makeError("unknown-target", "no target profile '" + target + "' (known: " +
                                                    (known.empty() ? "none found" : known) +
                                                    "; a path to a .json profile also works)");
}

TargetListing listTargetProfiles(const std::vector<std::string> &searchPath)
{
    TargetListing listing;
    std::map<std::string, TargetProfile> byId;
    for (const std::string &dir : searchPath) {
        std::error_code ec;
        std::vector<fs::path> files;
        for (const auto &entry : fs::directory_iterator(dir, ec))
            if (entry.path().extension() == ".json")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path &file : files) {
            if (byId.contains(file.stem().string()))
                continue;
            auto profile = loadTargetProfile(file.string());
            if (!profile)
                listing.problems.push_back(profile.error());
            else
                byId.emplace(file.stem().string(), std::move(*profile));
        }
    }
    for (auto &[id, profile] : byId)
        listing.profiles.push_back(std::move(profile));
    return listing;
}

} // namespace portolan::diagnose
