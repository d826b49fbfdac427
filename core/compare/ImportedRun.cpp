// Reading imported tensors, and replaying them as a run.
#include "compare/ImportedRun.h"

#include "ir/Topology.h"
#include "runtime/TensorProtoIO.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace portolan::compare {

using support::makeError;

support::Expected<runtime::Tensor> readNpyFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError("io", "cannot read the file", path);
    char magic[8] = {};
    in.read(magic, 8);
    if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        return makeError("bad-npy", "not a NumPy .npy file", path);
    std::uint32_t headerLength = 0;
    if (magic[6] == 1) {
        unsigned char two[2];
        in.read(reinterpret_cast<char *>(two), 2);
        headerLength = two[0] | (two[1] << 8);
    } else {
        unsigned char four[4];
        in.read(reinterpret_cast<char *>(four), 4);
        headerLength = four[0] | (four[1] << 8) | (four[2] << 16) | (static_cast<std::uint32_t>(four[3]) << 24);
    }
    if (!in || headerLength > (1u << 20))
        return makeError("bad-npy", "the .npy header is unreadable", path);
    std::string header(headerLength, '\0');
    in.read(header.data(), headerLength);
    std::smatch descr, order, shape;
    static const std::regex descrPattern(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')");
    static const std::regex orderPattern(R"('fortran_order'\s*:\s*(True|False))");
    static const std::regex shapePattern(R"('shape'\s*:\s*\(([^)]*)\))");
    if (!std::regex_search(header, descr, descrPattern) || !std::regex_search(header, order, orderPattern) ||
        !std::regex_search(header, shape, shapePattern))
        return makeError("bad-npy", "the .npy header lacks descr, fortran_order or shape: " + header, path);
    if (descr[1] == ">")
        return makeError("bad-npy", "big-endian .npy data is not supported", path);
    if (order[1] == "True")
        return makeError("bad-npy", "Fortran-order .npy data is not supported (save it C-contiguous)", path);
    const std::string kind = descr[2], size = descr[3];
    static const std::map<std::string, int> types{
        {"f2", onnx::TensorProto::FLOAT16}, {"f4", onnx::TensorProto::FLOAT}, {"f8", onnx::TensorProto::DOUBLE},
        {"i1", onnx::TensorProto::INT8},    {"i2", onnx::TensorProto::INT16}, {"i4", onnx::TensorProto::INT32},
        {"i8", onnx::TensorProto::INT64},   {"u1", onnx::TensorProto::UINT8}, {"u2", onnx::TensorProto::UINT16},
        {"u4", onnx::TensorProto::UINT32},  {"u8", onnx::TensorProto::UINT64}, {"b1", onnx::TensorProto::BOOL}};
    const auto type = types.find(kind + size);
    if (type == types.end())
        return makeError("bad-npy", "the .npy element type '" + kind + size + "' has no ONNX counterpart", path);
    runtime::Shape dims;
    std::stringstream list(shape[1].str());
    for (std::string item; std::getline(list, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        if (item.empty())
            continue;
        char *end = nullptr;
        const long long d = std::strtoll(item.c_str(), &end, 10);
        if (d < 0 || end == item.c_str())
            return makeError("bad-npy", "the .npy shape '" + shape[1].str() + "' is not a list of sizes", path);
        dims.push_back(d);
    }
    const auto count = runtime::elementCount(dims);
    if (count > (std::int64_t(1) << 36))
        return makeError("bad-npy", "the .npy shape is implausibly large", path);
    runtime::Tensor tensor = runtime::Tensor::zeros(type->second, dims);
    in.read(reinterpret_cast<char *>(tensor.mutableData<std::byte>()), static_cast<std::streamsize>(tensor.byteSize()));
    if (!in)
        return makeError("bad-npy", "the .npy data is shorter than its shape says", path);
    return tensor;
}

support::Expected<ImportedRun> readImportedRun(const std::string &dir, const ir::Model &model)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return makeError("io", "is not a folder of .pb or .npy files", dir);
    ImportedRun run;
    run.dir = dir;
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file() && (entry.path().extension() == ".pb" || entry.path().extension() == ".npy"))
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path &file : files) {
        std::string name;
        runtime::RuntimeValue value;
        if (file.extension() == ".npy") {
            auto tensor = readNpyFile(file.string());
            if (!tensor)
                return tensor.takeError();
            name = file.stem().string();
            value = runtime::RuntimeValue::ofTensor(std::move(*tensor));
        } else {
            name = runtime::valueFileName(file.string(), {});
            if (name.empty())
                name = file.stem().string();
            const auto id = model.lookup(model.mainGraph(), name);
            auto read = runtime::readValueFile(file.string(), id ? model.value(*id).type() : onnx::TypeProto{});
            if (!read)
                return read.takeError();
            value = std::move(*read);
        }
        if (!model.lookup(model.mainGraph(), name))
            run.unknownNames.push_back(name + " (" + file.filename().string() + ")");
        run.tensors[name] = std::move(value);
    }
    if (run.tensors.empty())
        return makeError("no-tensors", "holds no .pb or .npy files", dir);
    return run;
}

RunSide importedSide(const ir::Model &model, std::shared_ptr<const ImportedRun> run)
{
    RunSide side;
    side.label = "imported:" + run->dir;
    side.model = &model;
    side.run = [&model, run](const runtime::NamedValues &, const runtime::RunOptions &options) -> support::Expected<runtime::NamedValues> {
        auto order = ir::topologicalOrder(model, model.mainGraph());
        if (!order)
            return order.takeError();
        std::vector<runtime::RuntimeValue> outputs;
        for (const ir::NodeId n : *order) { // the comparison sees each tensor as its node's output
            const ir::Node &node = model.node(n);
            outputs.assign(node.outputs.size(), {});
            bool any = false;
            for (std::size_t k = 0; k < node.outputs.size(); ++k)
                if (node.outputs[k].valid())
                    if (const auto it = run->tensors.find(model.value(node.outputs[k]).name); it != run->tensors.end()) {
                        outputs[k] = it->second;
                        any = true;
                    }
            if (any && options.observer)
                options.observer->nodeFinished(node, outputs);
        }
        runtime::NamedValues results;
        for (const ir::ValueId out : model.graph(model.mainGraph()).outputs)
            if (const auto it = run->tensors.find(model.value(out).name); it != run->tensors.end())
                results.emplace_back(it->first, it->second);
        return results;
    };
    return side;
}

} // namespace portolan::compare
