// External data: location must be relative, stay inside the model's folder (symlinks included), and
// offset/length must lie inside the file and match the tensor's size.
#include "ir/ExternalData.h"

#include "ir/TensorValidation.h"

#include <charconv>
#include <climits>
#include <cstdlib>
#include <filesystem>

namespace portolan::ir {

using support::makeError;

static bool parseUnsigned(const std::string &text, std::uint64_t &out)
{
    if (text.empty())
        return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

support::Expected<std::shared_ptr<const support::MappedFile>>
ExternalDataResolver::mapInsideBase(const std::string &location)
{
    namespace fs = std::filesystem;
    const fs::path rel(location);
    if (location.empty() || rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
        return makeError("external-path-escapes", "external data location '" + location +
                                                      "' is not a relative path inside the model's folder");
    for (const auto &part : rel)
        if (part == "..")
            return makeError("external-path-escapes",
                             "external data location '" + location + "' uses '..' to leave the model's folder");
    if (m_baseDir.empty())
        return makeError("external-no-folder",
                         "external data '" + location + "' cannot be read: the model was not loaded from a file");

    if (m_realBase.empty()) {
        char buffer[PATH_MAX];
        if (!::realpath(m_baseDir.c_str(), buffer))
            return makeError("external-missing", "model folder '" + m_baseDir + "' cannot be resolved");
        m_realBase = buffer;
    }
    const std::string joined = (fs::path(m_baseDir) / rel).string();
    char buffer[PATH_MAX];
    if (!::realpath(joined.c_str(), buffer))
        return makeError("external-missing", "external data file '" + location + "' does not exist beside the model");
    const std::string real = buffer;
    if (!fs::is_regular_file(real))
        return makeError("external-not-a-file", "external data location '" + location + "' is not a regular file");
    if (real.rfind(m_realBase + "/", 0) != 0)
        return makeError("external-path-escapes",
                         "external data location '" + location + "' resolves (through a link) to '" + real +
                             "', outside the model's folder");

    if (auto it = m_files.find(real); it != m_files.end())
        return it->second;
    auto mapped = support::MappedFile::open(real);
    if (!mapped) {
        support::Error e = mapped.takeError();
        e.primary.message = "external data '" + location + "': " + e.primary.message;
        return e;
    }
    m_files.emplace(real, *mapped);
    return *mapped;
}

support::Status ExternalDataResolver::resolve(Initializer &init)
{
    std::string location;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    bool hasLength = false;
    for (const auto &entry : init.proto.external_data()) {
        if (entry.key() == "location") {
            location = entry.value();
        } else if (entry.key() == "offset") {
            if (!parseUnsigned(entry.value(), offset))
                return makeError("external-bad-offset", "external data offset '" + entry.value() + "' is not a number");
        } else if (entry.key() == "length") {
            if (!parseUnsigned(entry.value(), length))
                return makeError("external-bad-length", "external data length '" + entry.value() + "' is not a number");
            hasLength = true;
        }
    }
    auto file = mapInsideBase(location);
    if (!file)
        return file.takeError();
    const std::uint64_t fileSize = (*file)->size();
    if (offset > fileSize)
        return makeError("external-out-of-range", "external data offset " + std::to_string(offset) +
                                                      " is past the end of '" + location + "' (" +
                                                      std::to_string(fileSize) + " bytes)");
    if (!hasLength)
        length = fileSize - offset;
    if (length > fileSize - offset)
        return makeError("external-out-of-range", "external data [" + std::to_string(offset) + ", " +
                                                      std::to_string(offset + length) + ") runs past the end of '" +
                                                      location + "' (" + std::to_string(fileSize) + " bytes)");
    const auto expected = expectedByteSize(init.proto);
    if (!expected && init.proto.data_type() != onnx::TensorProto::STRING)
        return makeError("dims-overflow", "the tensor's dims need more bytes than a 64-bit size can count");
    if (expected && *expected != length)
        return makeError("data-size-mismatch", "external data in '" + location + "' holds " + std::to_string(length) +
                                                   " bytes but the tensor's dims need " + std::to_string(*expected));
    init.file = *file;
    init.external = (*file)->bytes().subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    return support::Status::ok();
}

} // namespace portolan::ir
