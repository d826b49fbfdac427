// Reading test_data_set directories.
#include "runtime/TestDataSet.h"

#include "runtime/TensorProtoIO.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace portolan::runtime {

namespace fs = std::filesystem;

std::vector<std::string> testDataFiles(const std::string &dir, const std::string &prefix)
{
    std::vector<std::pair<long, std::string>> found;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix + "_", 0) == 0 && entry.path().extension() == ".pb")
            found.emplace_back(std::strtol(name.c_str() + prefix.size() + 1, nullptr, 10), entry.path().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> files;
    for (auto &[index, path] : found)
        files.push_back(std::move(path));
    return files;
}

support::Expected<NamedValues> readTestDataInputs(const ir::Model &model, const std::string &dir)
{
    const ir::Graph &main = model.graph(model.mainGraph());
    std::vector<ir::ValueId> feedable;
    for (const ir::ValueId v : main.inputs)
        if (!model.value(v).isInitializer())
            feedable.push_back(v);
    const auto files = testDataFiles(dir, "input");
    NamedValues feeds;
    for (std::size_t k = 0; k < files.size(); ++k) {
        ir::ValueId target = k < feedable.size() ? feedable[k] : ir::ValueId();
        const onnx::TypeProto &guess = target.valid() ? model.value(target).type() : onnx::TypeProto::default_instance();
        const std::string stored = valueFileName(files[k], guess);
        for (const ir::ValueId v : main.inputs)
            if (!stored.empty() && model.value(v).name == stored)
                target = v;
        if (!target.valid())
            return support::makeError("extra-input-file", "more input files than the model has inputs", files[k]);
        auto value = readValueFile(files[k], model.value(target).type());
        if (!value)
            return value.takeError();
        feeds.emplace_back(model.value(target).name, std::move(*value));
    }
    return feeds;
}

support::Expected<NamedValues> readTestDataOutputs(const ir::Model &model, const std::string &dir)
{
    const ir::Graph &main = model.graph(model.mainGraph());
    const auto files = testDataFiles(dir, "output");
    if (files.size() != main.outputs.size())
        return support::makeError("output-count", std::to_string(files.size()) + " output files for " +
                                                      std::to_string(main.outputs.size()) + " model outputs",
                                  dir);
    NamedValues expected;
    for (std::size_t k = 0; k < files.size(); ++k) {
        const ir::Value &out = model.value(main.outputs[k]);
        auto value = readValueFile(files[k], out.type());
        if (!value)
            return value.takeError();
        expected.emplace_back(out.name, std::move(*value));
    }
    return expected;
}

} // namespace portolan::runtime
