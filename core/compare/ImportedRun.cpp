// Reading imported tensors, and replaying them as a run.
#include "compare/ImportedRun.h"

#include "runtime/NumpyFiles.h"
#include "compare/PolygraphyRun.h"
#include "ir/Topology.h"
#include "runtime/TensorProtoIO.h"

#include <algorithm>
#include <filesystem>

namespace portolan::compare {

using support::makeError;

support::Expected<ImportedRun> readImportedRun(const std::string &source, const ir::Model &model)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    ImportedRun run;
    run.dir = source;
    auto add = [&](std::string name, runtime::RuntimeValue value, const std::string &from) {
        if (!model.lookup(model.mainGraph(), name))
            run.unknownNames.push_back(name + " (" + from + ")");
        run.tensors[std::move(name)] = std::move(value);
    };
    const std::size_t hash = source.rfind('#');
    const std::string file = hash == std::string::npos ? source : source.substr(0, hash);
    if (file.ends_with(".json")) {
        auto polygraphy = readPolygraphyRunResults(file, hash == std::string::npos ? "" : source.substr(hash + 1));
        if (!polygraphy)
            return polygraphy.takeError();
        for (auto &[name, tensor] : polygraphy->tensors)
            add(name, runtime::RuntimeValue::ofTensor(std::move(tensor)), "runner " + polygraphy->runner);
        run.dir = file + "#" + polygraphy->runner;
    } else if (source.ends_with(".npz")) {
        auto arrays = runtime::readNpzFile(source);
        if (!arrays)
            return arrays.takeError();
        for (auto &[name, tensor] : *arrays)
            add(name, runtime::RuntimeValue::ofTensor(std::move(tensor)), name + ".npy");
    } else {
        if (!fs::is_directory(source, ec))
            return makeError("io", "is neither a folder of .pb or .npy files, an .npz archive nor Polygraphy's .json", source);
        std::vector<fs::path> files;
        for (const auto &entry : fs::directory_iterator(source, ec))
            if (entry.is_regular_file() && (entry.path().extension() == ".pb" || entry.path().extension() == ".npy"))
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path &path : files) {
            if (path.extension() == ".npy") {
                auto tensor = runtime::readNpyFile(path.string());
                if (!tensor)
                    return tensor.takeError();
                add(runtime::percentDecoded(path.stem().string()), runtime::RuntimeValue::ofTensor(std::move(*tensor)), path.filename().string());
                continue;
            }
            std::string name = runtime::valueFileName(path.string(), {});
            if (name.empty())
                name = path.stem().string();
            const auto id = model.lookup(model.mainGraph(), name);
            auto read = runtime::readValueFile(path.string(), id ? model.value(*id).type() : onnx::TypeProto{});
            if (!read)
                return read.takeError();
            add(name, std::move(*read), path.filename().string());
        }
    }
    if (run.tensors.empty())
        return makeError("no-tensors", "holds no tensors (.pb or .npy files, .npz entries, Polygraphy outputs)", source);
    return run;
}

support::Expected<runtime::NamedValues> replayImported(const ir::Model &model, const ImportedRun &run, const runtime::RunOptions &options)
{
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
                if (const auto it = run.tensors.find(model.value(node.outputs[k]).name); it != run.tensors.end()) {
                    outputs[k] = it->second;
                    any = true;
                }
        if (any && options.observer)
            options.observer->nodeFinished(node, outputs);
    }
    runtime::NamedValues results;
    for (const ir::ValueId out : model.graph(model.mainGraph()).outputs)
        if (const auto it = run.tensors.find(model.value(out).name); it != run.tensors.end())
            results.emplace_back(it->first, it->second);
    return results;
}

RunSide importedSide(const ir::Model &model, std::shared_ptr<const ImportedRun> run)
{
    RunSide side;
    side.label = "imported:" + run->dir;
    side.model = &model;
    side.run = [&model, run](const runtime::NamedValues &, const runtime::RunOptions &options) {
        return replayImported(model, *run, options);
    };
    return side;
}

} // namespace portolan::compare
