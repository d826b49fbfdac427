// Reading and writing `.portolan` sessions (see SessionFile.h).
#include "session/SessionFile.h"

#include "support/JsonWriter.h"
#include "support/StagedFile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace portolan::session {

namespace fs = std::filesystem;

namespace {

constexpr const char *kFormat = "portolan-session";
/// A session is a few hundred bytes; anything far larger is not one.
constexpr std::uintmax_t kMaxSessionBytes = 1 << 20;

std::string relativeTo(const std::string &path, const fs::path &folder)
{
    if (path.empty())
        return path;
    std::error_code ec;
    const fs::path relative = fs::absolute(path, ec).lexically_relative(folder);
    if (ec || relative.empty() || *relative.begin() == "..")
        return path;
    return relative.generic_string();
}

std::string resolved(const std::string &path, const fs::path &folder)
{
    if (path.empty() || fs::path(path).is_absolute())
        return path;
    return (folder / path).lexically_normal().string();
}

fs::path folderOf(const std::string &sessionPath)
{
    std::error_code ec;
    return fs::absolute(sessionPath, ec).parent_path();
}

} // namespace

std::string sessionJson(const SessionFile &s, const std::string &sessionPath)
{
    const fs::path folder = folderOf(sessionPath);
    support::JsonWriter w;
    w.beginObject().field("format", kFormat).field("format_version", SessionFile::kFormatVersion);
    w.field("model", relativeTo(s.model, folder)).field("pipeline", s.pipeline).field("target", s.target);
    w.key("compare").beginObject().field("pipeline", s.compare.pipeline).field("precision", s.compare.precision)
        .field("inputs", relativeTo(s.compare.inputsDir, folder)).field("seed", s.compare.seed).field("shapes", s.compare.shapes)
        .field("atol", s.compare.atol).field("rtol", s.compare.rtol).field("no_drift", s.compare.noDrift).field("heat_metric", s.compare.heatMetric)
        .field("calibration", s.compare.calibration).field("import", relativeTo(s.compare.importFrom, folder))
        .field("external", s.compare.externalCommand).field("input_files", s.compare.inputFiles).field("a", s.compare.sideA)
        .field("executor", s.compare.executorB).endObject();
    w.endObject();
    return w.str() + "\n";
}

support::Status writeSession(const SessionFile &session, const std::string &path, bool force)
{
    std::error_code ec;
    if (fs::exists(path, ec) && !force)
        return support::makeError("file-exists", "already exists (save with replace to overwrite it)", path);
    const std::string text = sessionJson(session, path);
    return support::writeFileWhole(path, text, force ? support::Overwrite::Allow : support::Overwrite::Refuse);
}

support::Expected<SessionFile> readSession(const std::string &path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec)
        return support::makeError("cannot-open", "cannot read the session: " + ec.message(), path);
    if (size > kMaxSessionBytes)
        return support::makeError("not-a-session", "is " + std::to_string(size) + " bytes: too large for a session file", path);
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error &e) {
        return support::makeError("not-a-session", std::string("is not JSON: ") + e.what(), path);
    }
    if (!root.is_object() || root.value("format", std::string()) != kFormat)
        return support::makeError("not-a-session", "is not a Portolan session (no \"format\": \"portolan-session\")", path);
    SessionFile s;
    try {
        if (const int version = root.at("format_version").get<int>(); version > SessionFile::kFormatVersion)
            return support::makeError("session-too-new",
                                      "is a version " + std::to_string(version) + " session; this Portolan reads version " +
                                          std::to_string(SessionFile::kFormatVersion),
                                      path);
        const fs::path folder = folderOf(path);
        s.model = resolved(root.at("model").get<std::string>(), folder);
        if (s.model.empty())
            return support::makeError("bad-session", "names no model", path);
        s.pipeline = root.value("pipeline", std::string());
        s.target = root.value("target", std::string());
        if (const auto c = root.find("compare"); c != root.end()) {
            s.compare.pipeline = c->value("pipeline", s.compare.pipeline);
            s.compare.precision = c->value("precision", s.compare.precision);
            s.compare.inputsDir = resolved(c->value("inputs", std::string()), folder);
            s.compare.seed = c->value("seed", s.compare.seed);
            s.compare.shapes = c->value("shapes", std::string());
            s.compare.atol = c->value("atol", std::string());
            s.compare.rtol = c->value("rtol", std::string());
            s.compare.noDrift = c->value("no_drift", false);
            s.compare.heatMetric = c->value("heat_metric", s.compare.heatMetric);
            s.compare.calibration = c->value("calibration", s.compare.calibration);
            s.compare.importFrom = resolved(c->value("import", std::string()), folder);
            s.compare.externalCommand = c->value("external", std::string());
            s.compare.inputFiles = c->value("input_files", std::string());
            s.compare.sideA = c->value("a", s.compare.sideA);
            s.compare.executorB = c->value("executor", s.compare.executorB);
        }
    } catch (const nlohmann::json::exception &e) { // a field of the wrong JSON type
        return support::makeError("bad-session", std::string("has a field of the wrong type: ") + e.what(), path);
    }
    return s;
}

} // namespace portolan::session
