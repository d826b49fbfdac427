// .npy parsing from memory, and a small zip reader for .npz (the central directory, local
// headers, Zip64 extras; deflate through zlib).
#include "runtime/NumpyFiles.h"

#include "ir/Type.h"
#include "runtime/TensorProtoIO.h"
#include "support/StagedFile.h"

#include <filesystem>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace portolan::runtime {

using support::makeError;

namespace {

/// NumPy's descr codes (little-endian) and the ONNX element types they are.
constexpr std::array<std::pair<std::string_view, int>, 12> kNumpyTypes{{
    {"f2", onnx::TensorProto::FLOAT16}, {"f4", onnx::TensorProto::FLOAT}, {"f8", onnx::TensorProto::DOUBLE},
    {"i1", onnx::TensorProto::INT8},    {"i2", onnx::TensorProto::INT16}, {"i4", onnx::TensorProto::INT32},
    {"i8", onnx::TensorProto::INT64},   {"u1", onnx::TensorProto::UINT8}, {"u2", onnx::TensorProto::UINT16},
    {"u4", onnx::TensorProto::UINT32},  {"u8", onnx::TensorProto::UINT64}, {"b1", onnx::TensorProto::BOOL}}};

std::uint64_t little(const unsigned char *p, int bytes)
{
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

support::Expected<std::string> readWholeFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError("io", "cannot read the file", path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

support::Expected<std::string> inflateRaw(std::string_view compressed, std::uint64_t size, const std::string &where)
{
    if (size > (std::uint64_t(1) << 36))
        return makeError("bad-npz", "an entry is implausibly large", where);
    std::string out(size, '\0');
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
        return makeError("bad-npz", "cannot start inflating", where);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&stream, Z_FINISH);
    inflateEnd(&stream);
    if (status != Z_STREAM_END || stream.total_out != size)
        return makeError("bad-npz", "a deflated entry does not inflate to its stated size", where);
    return out;
}

} // namespace

support::Expected<runtime::Tensor> parseNpy(std::string_view bytes, const std::string &where)
{
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        return makeError("bad-npy", "not a NumPy .npy file", where);
    const auto *u = reinterpret_cast<const unsigned char *>(bytes.data());
    const bool version1 = u[6] == 1;
    const std::size_t lengthBytes = version1 ? 2 : 4;
    const std::size_t headerLength = little(u + 8, static_cast<int>(lengthBytes));
    const std::size_t dataStart = 8 + lengthBytes + headerLength;
    if (headerLength > (1u << 20) || dataStart > bytes.size())
        return makeError("bad-npy", "the .npy header is unreadable", where);
    const std::string header(bytes.substr(8 + lengthBytes, headerLength));
    std::smatch descr, order, shape;
    static const std::regex descrPattern(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')");
    static const std::regex orderPattern(R"('fortran_order'\s*:\s*(True|False))");
    static const std::regex shapePattern(R"('shape'\s*:\s*\(([^)]*)\))");
    if (!std::regex_search(header, descr, descrPattern) || !std::regex_search(header, order, orderPattern) ||
        !std::regex_search(header, shape, shapePattern))
        return makeError("bad-npy", "the .npy header lacks descr, fortran_order or shape: " + header, where);
    if (descr[1] == ">")
        return makeError("bad-npy", "big-endian .npy data is not supported", where);
    if (order[1] == "True")
        return makeError("bad-npy", "Fortran-order .npy data is not supported (save it C-contiguous)", where);
    const std::string kind = descr[2], size = descr[3];
    const auto type = std::find_if(kNumpyTypes.begin(), kNumpyTypes.end(), [&](const auto &t) { return t.first == kind + size; });
    if (type == kNumpyTypes.end())
        return makeError("bad-npy", "the .npy element type '" + kind + size + "' has no ONNX counterpart", where);
    runtime::Shape dims;
    std::stringstream list(shape[1].str());
    for (std::string item; std::getline(list, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        if (item.empty())
            continue;
        char *end = nullptr;
        const long long d = std::strtoll(item.c_str(), &end, 10);
        if (d < 0 || end == item.c_str())
            return makeError("bad-npy", "the .npy shape '" + shape[1].str() + "' is not a list of sizes", where);
        dims.push_back(d);
    }
    const auto count = runtime::elementCount(dims);
    if (count > (std::int64_t(1) << 36))
        return makeError("bad-npy", "the .npy shape is implausibly large", where);
    runtime::Tensor tensor = runtime::Tensor::zeros(type->second, dims);
    if (bytes.size() - dataStart < tensor.byteSize())
        return makeError("bad-npy", "the .npy data is shorter than its shape says", where);
    std::memcpy(tensor.mutableData<std::byte>(), bytes.data() + dataStart, tensor.byteSize());
    return tensor;
}

support::Expected<runtime::Tensor> readNpyFile(const std::string &path)
{
    auto bytes = readWholeFile(path);
    if (!bytes)
        return bytes.takeError();
    return parseNpy(*bytes, path);
}

support::Status writeNpyFile(const runtime::Tensor &tensor, const std::string &path)
{
    const auto type = std::find_if(kNumpyTypes.begin(), kNumpyTypes.end(), [&](const auto &t) { return t.second == tensor.dataType(); });
    if (type == kNumpyTypes.end())
        return makeError("npy-type", "NumPy has no element type for this tensor's", path);
    std::string shape;
    for (const std::int64_t d : tensor.shape())
        shape += std::to_string(d) + ", ";
    std::string header = "{'descr': '" + std::string(type->first[0] == 'b' ? "|" : "<") + std::string(type->first) +
                         "', 'fortran_order': False, 'shape': (" + shape + "), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' '); // the data starts 64-byte aligned
    header += '\n';
    const unsigned char length[2] = {static_cast<unsigned char>(header.size() & 0xff), static_cast<unsigned char>(header.size() >> 8)};
    const std::string prefix = std::string("\x93NUMPY\x01\x00", 8) + std::string(reinterpret_cast<const char *>(length), 2) + header;
    return support::writeFileWhole(
        path,
        [&](int fd) {
            return support::writeAll(fd, prefix.data(), prefix.size()) &&
                   support::writeAll(fd, tensor.rawData(), tensor.byteSize());
        },
        support::Overwrite::Refuse);
}

support::Expected<std::vector<std::pair<std::string, runtime::Tensor>>> readNpzFile(const std::string &path)
{
    auto file = readWholeFile(path);
    if (!file)
        return file.takeError();
    const std::string &zip = *file;
    const auto *u = reinterpret_cast<const unsigned char *>(zip.data());
    // the end-of-central-directory record: within the last 64 KiB (its comment's limit)
    std::size_t end = std::string::npos;
    const std::size_t lowest = zip.size() > 65557 ? zip.size() - 65557 : 0;
    for (std::size_t at = zip.size() >= 22 ? zip.size() - 21 : 0; at-- > lowest;)
        if (little(u + at, 4) == 0x06054b50) {
            end = at;
            break;
        }
    if (end == std::string::npos)
        return makeError("bad-npz", "not a zip archive (no end of central directory)", path);
    std::uint64_t entries = little(u + end + 10, 2), directory = little(u + end + 16, 4);
    if ((entries == 0xffff || directory == 0xffffffff) && end >= 20 && little(u + end - 20, 4) == 0x07064b50) {
        const std::uint64_t record = little(u + end - 12, 8); // the Zip64 end record
        if (record + 56 > zip.size() || little(u + record, 4) != 0x06064b50)
            return makeError("bad-npz", "a broken Zip64 end record", path);
        entries = little(u + record + 32, 8);
        directory = little(u + record + 48, 8);
    }
    std::vector<std::pair<std::string, runtime::Tensor>> arrays;
    std::uint64_t at = directory;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (at + 46 > zip.size() || little(u + at, 4) != 0x02014b50)
            return makeError("bad-npz", "a broken central directory", path);
        const auto flags = little(u + at + 8, 2), method = little(u + at + 10, 2);
        std::uint64_t compressed = little(u + at + 20, 4), size = little(u + at + 24, 4), local = little(u + at + 42, 4);
        const auto nameLength = little(u + at + 28, 2), extraLength = little(u + at + 30, 2), commentLength = little(u + at + 32, 2);
        if (at + 46 + nameLength + extraLength > zip.size())
            return makeError("bad-npz", "a broken central directory", path);
        std::string name = zip.substr(at + 46, nameLength);
        // Zip64: the fields saturated at 0xffffffff are in the extra field 0x0001, in this order
        for (std::uint64_t x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength;) {
            const auto id = little(u + x, 2), length = little(u + x + 2, 2);
            std::uint64_t field = x + 4;
            if (id == 0x0001)
                for (std::uint64_t *value : {&size, &compressed, &local})
                    if (*value == 0xffffffff && field + 8 <= x + 4 + length) {
                        *value = little(u + field, 8);
                        field += 8;
                    }
            x += 4 + length;
        }
        at += 46 + nameLength + extraLength + commentLength;
        const std::string where = path + ": " + name;
        if (flags & 1)
            return makeError("bad-npz", "the entry is encrypted", where);
        if (local + 30 > zip.size() || little(u + local, 4) != 0x04034b50)
            return makeError("bad-npz", "the entry's local header is missing", where);
        const std::uint64_t data = local + 30 + little(u + local + 26, 2) + little(u + local + 28, 2);
        if (data + compressed > zip.size())
            return makeError("bad-npz", "the entry runs past the end of the archive", where);
        const std::string_view stored(zip.data() + data, compressed);
        std::string inflated;
        if (method == 8) {
            auto out = inflateRaw(stored, size, where);
            if (!out)
                return out.takeError();
            inflated = std::move(*out);
        } else if (method != 0) {
            return makeError("bad-npz", "compression method " + std::to_string(method) + " is not stored or deflate", where);
        }
        auto tensor = parseNpy(method == 8 ? std::string_view(inflated) : stored, where);
        if (!tensor)
            return tensor.takeError();
        if (name.ends_with(".npy"))
            name.resize(name.size() - 4);
        arrays.emplace_back(std::move(name), std::move(*tensor));
    }
    return arrays;
}

std::string percentDecoded(const std::string &text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string percentEncoded(const std::string &text)
{
    static const char *hex = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '.' || c == '_') {
            out += c;
        } else {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 15];
        }
    }
    return out;
}

support::Expected<runtime::RuntimeValue> readFeedFile(const std::string &path, const ir::Value &input)
{
    if (!path.ends_with(".npy"))
        return runtime::readValueFile(path, input.type());
    auto tensor = readNpyFile(path);
    if (!tensor)
        return tensor.takeError();
    const int declared = input.type().has_tensor_type() ? input.type().tensor_type().elem_type() : 0;
    if (declared != 0 && tensor->dataType() != declared)
        return support::makeError("bad-input", "holds " + ir::dataTypeName(tensor->dataType()) + " values; input '" + input.name +
                                                   "' takes " + ir::dataTypeName(declared),
                                  path);
    return runtime::RuntimeValue::ofTensor(std::move(*tensor));
}

std::string feedFileName(const std::string &path)
{
    if (!path.ends_with(".npy"))
        return runtime::valueFileName(path, onnx::TypeProto{});
    const std::filesystem::path file(path);
    return percentDecoded(file.stem().string());
}

} // namespace portolan::runtime
