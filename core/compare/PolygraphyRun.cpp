// Polygraphy's JSON, read with nlohmann::json (Debian's nlohmann-json3-dev, the standard C++ JSON
// library); the arrays inside are .npy bytes in base64.
#include "compare/PolygraphyRun.h"

#include "runtime/NumpyFiles.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace portolan::compare {

using support::makeError;

namespace {

support::Expected<std::string> base64Decoded(const std::string &text, const std::string &where)
{
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve(text.size() / 4 * 3);
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        if (c == '=' || c == '\n' || c == '\r')
            continue;
        const auto index = alphabet.find(c);
        if (index == std::string::npos)
            return makeError("bad-polygraphy-json", "an array is not base64", where);
        bits = (bits << 6) | static_cast<std::uint32_t>(index);
        if (++count == 4) {
            out += static_cast<char>(bits >> 16);
            out += static_cast<char>((bits >> 8) & 0xff);
            out += static_cast<char>(bits & 0xff);
            bits = 0;
            count = 0;
        }
    }
    if (count == 2)
        out += static_cast<char>(bits >> 4);
    else if (count == 3) {
        out += static_cast<char>(bits >> 10);
        out += static_cast<char>((bits >> 2) & 0xff);
    } else if (count == 1) {
        return makeError("bad-polygraphy-json", "an array's base64 is truncated", where);
    }
    return out;
}

/// An encoded array: {"array": base64} (a bare ndarray) or {"values": {"array": …}} (a LazyArray).
support::Expected<runtime::Tensor> arrayOf(const nlohmann::json &encoded, const std::string &where)
{
    const nlohmann::json *array = &encoded;
    if (array->is_object() && array->contains("values"))
        array = &(*array)["values"];
    if (!array->is_object() || !array->contains("array") || !(*array)["array"].is_string())
        return makeError("bad-polygraphy-json", "an output is not an encoded NumPy array", where);
    auto bytes = base64Decoded((*array)["array"].get<std::string>(), where);
    if (!bytes)
        return bytes.takeError();
    return runtime::parseNpy(*bytes, where);
}

} // namespace

support::Expected<PolygraphyRun> readPolygraphyRunResults(const std::string &path, const std::string &runner)
{
    std::ifstream in(path);
    if (!in)
        return makeError("io", "cannot read the file", path);
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        return makeError("bad-polygraphy-json", std::string("not JSON: ") + e.what(), path);
    }
    if (!root.is_object() || !root.contains("lst") || !root["lst"].is_array())
        return makeError("bad-polygraphy-json", "not Polygraphy RunResults (no \"lst\" of runners): save it with "
                                                "`polygraphy run … --save-outputs FILE.json`", path);
    PolygraphyRun run;
    const nlohmann::json *chosen = nullptr;
    std::vector<const nlohmann::json *> prefixed;
    for (const nlohmann::json &entry : root["lst"]) {
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_array())
            return makeError("bad-polygraphy-json", "a runner entry is not [name, iterations]", path);
        const std::string name = entry[0].get<std::string>();
        run.runners.push_back(name);
        if (name == runner)
            chosen = &entry;
        else if (!runner.empty() && name.starts_with(runner))
            prefixed.push_back(&entry);
    }
    std::string names;
    for (const std::string &n : run.runners)
        names += (names.empty() ? "" : ", ") + n;
    if (!chosen && runner.empty() && run.runners.size() == 1)
        chosen = &root["lst"][0];
    if (!chosen && prefixed.size() == 1)
        chosen = prefixed.front();
    if (!chosen)
        return makeError("polygraphy-runner", (runner.empty() ? "holds several runners; pick one with PATH#RUNNER"
                                                              : "has no single runner named '" + runner + "'") +
                                                  std::string(" (runners: ") + (names.empty() ? "none" : names) + ")",
                         path);
    run.runner = (*chosen)[0].get<std::string>();
    const nlohmann::json &iterations = (*chosen)[1];
    run.iterations = iterations.size();
    if (iterations.empty() || !iterations[0].is_object() || !iterations[0].contains("outputs") ||
        !iterations[0]["outputs"].is_object())
        return makeError("bad-polygraphy-json", "runner '" + run.runner + "' has no iteration with outputs", path);
    for (const auto &[name, encoded] : iterations[0]["outputs"].items()) {
        auto tensor = arrayOf(encoded, path + ": " + run.runner + ": " + name);
        if (!tensor)
            return tensor.takeError();
        run.tensors.emplace_back(name, std::move(*tensor));
    }
    return run;
}

} // namespace portolan::compare
