// Run values into folders of TensorProto files (see ValueDump.h).
#include "runtime/ValueDump.h"

#include "runtime/TensorProtoIO.h"
#include "support/StagedFile.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

namespace portolan::runtime {

namespace fs = std::filesystem;

namespace {

/// A file name for a tensor name: keeps letters, digits, '.', '-', '_'.
std::string safeName(const std::string &name)
{
    std::string out;
    for (const char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
    return out.empty() ? "unnamed" : out.substr(0, 120);
}

void beginEntry(support::JsonWriter &w, const std::string &name, const std::string &file, const RuntimeValue &v)
{
    w.beginObject().field("name", name).field("file", file).field("type", v.describe());
}

} // namespace

support::Status prepareOutputFolder(const std::string &dir, bool overwrite)
{
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec))
            return support::makeError("not-a-directory", "exists and is not a directory", dir);
        if (!overwrite && !fs::is_empty(dir, ec))
            return support::makeError("directory-not-empty", "already holds files (use --force to write into it)", dir);
        return support::Status::ok();
    }
    if (!fs::create_directories(dir, ec))
        return support::makeError("cannot-write", "cannot create the directory: " + ec.message(), dir);
    return support::Status::ok();
}

support::Status writeOutputFolder(const NamedValues &values, const std::string &dir)
{
    support::JsonWriter manifest;
    manifest.beginArray();
    for (std::size_t k = 0; k < values.size(); ++k) {
        const std::string file = "output_" + std::to_string(k) + ".pb";
        const auto &[name, value] = values[k];
        if (auto st = writeValueFile(value, name, dir + "/" + file, true); !st)
            return st;
        beginEntry(manifest, name, file, value);
        manifest.endObject();
    }
    manifest.endArray();
    return support::writeFileWhole(dir + "/manifest.json", manifest.str() + "\n", support::Overwrite::Allow);
}

DumpObserver::DumpObserver(const ir::Model &model, std::string dir) : m_model(model), m_dir(std::move(dir))
{
    m_manifest.beginArray();
}

void DumpObserver::nodeFinished(const ir::Node &node, std::span<const RuntimeValue> outputs)
{
    for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
        if (!node.outputs[k].valid() || !m_error.empty())
            continue;
        const std::string &name = m_model.value(node.outputs[k]).name;
        char prefix[16];
        std::snprintf(prefix, sizeof prefix, "%06zu_", m_count++);
        const std::string file = prefix + safeName(name) + ".pb";
        if (auto st = writeValueFile(outputs[k], name, m_dir + "/" + file, true); !st)
            m_error = st.error().format();
        beginEntry(m_manifest, name, file, outputs[k]);
        m_manifest.field("node", node.name).field("op_type", node.opType).endObject();
    }
}

support::Status DumpObserver::finish()
{
    m_manifest.endArray();
    if (!m_error.empty())
        return support::makeError("cannot-write", m_error, m_dir);
    return support::writeFileWhole(m_dir + "/manifest.json", m_manifest.str() + "\n", support::Overwrite::Allow);
}

} // namespace portolan::runtime
