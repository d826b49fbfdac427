// Running the external command in a temporary folder and reading what it wrote.
#include "compare/ExternalRun.h"
#include "compare/Shell.h"

#include "runtime/NumpyFiles.h"
#include "ir/ModelSaver.h"
#include "runtime/TensorProtoIO.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace portolan::compare {

using support::makeError;

namespace {

/// The template with each placeholder replaced by its path, quoted for the shell.
std::string expanded(const std::string &text, const std::string &model, const std::string &inputs, const std::string &outputs)
{
    const std::pair<std::string, std::string> placeholders[] = {{"{model}", model}, {"{inputs}", inputs}, {"{outputs}", outputs}};
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto *match = std::find_if(std::begin(placeholders), std::end(placeholders),
                                         [&](const auto &p) { return text.compare(i, p.first.size(), p.first) == 0; });
        if (match == std::end(placeholders)) {
            out += text[i++];
        } else {
            out += shellQuoted(match->second);
            i += match->first.size();
        }
    }
    return out;
}


} // namespace

support::Status checkExternalCommand(const ExternalCommand &command)
{
    for (const char *key : {"{model}", "{inputs}", "{outputs}"})
        if (command.text.find(key) == std::string::npos)
            return makeError("bad-external", "the external command '" + command.text + "' lacks " + key +
                                                 " (it is a template: CMD {model} {inputs} {outputs})");
    if (!(command.timeoutSeconds > 0))
        return makeError("bad-external", "the external command's timeout must be positive");
    return support::Status::ok();
}

support::Expected<ImportedRun> runExternal(const ExternalCommand &command, const std::string &modelPath, const ir::Model &model,
                                           const runtime::NamedValues &feeds)
{
    if (auto st = checkExternalCommand(command); !st)
        return st.error();
    TemporaryFolder work;
    if (work.path().empty())
        return makeError("external-failed", "cannot create a temporary folder");
    namespace fs = std::filesystem;
    const std::string inputs = (fs::path(work.path()) / "inputs").string(), outputs = (fs::path(work.path()) / "outputs").string();
    std::error_code ec;
    fs::create_directories(inputs, ec);
    fs::create_directories(outputs, ec);
    for (std::size_t k = 0; k < feeds.size(); ++k) {
        const auto &[name, value] = feeds[k];
        if (auto st = runtime::writeValueFile(value, name, inputs + "/input_" + std::to_string(k) + ".pb", true); !st)
            return st.error();
        if (value.isTensor())
            if (auto st = runtime::writeNpyFile(value.tensor, inputs + "/" + runtime::percentEncoded(name) + ".npy"); !st)
                return st.error();
    }
    const std::string shell = expanded(command.text, modelPath, inputs, outputs);
    auto finished = runShell(shell, command.timeoutSeconds);
    if (!finished)
        return finished.takeError();
    if (auto st = commandSucceeded(*finished, shell, "the external command", command.timeoutSeconds, "--external-timeout"); !st)
        return st.error();
    const std::string tail = finished->output.empty() ? "" : "; its output ends:\n" + finished->output;
    auto run = readImportedRun(outputs, model);
    if (!run)
        return makeError("external-no-outputs", "the external command succeeded but left no tensors in {outputs} "
                                                "(write NAME.npy or TensorProto .pb files there)" + tail, shell);
    run->dir = command.text;
    return run;
}

RunSide externalSide(const ir::Model &model, const std::string &modelPath, const ExternalCommand &command)
{
    RunSide side;
    side.label = "external:" + command.text.substr(0, command.text.find(' '));
    side.model = &model;
    side.run = [&model, modelPath, command](const runtime::NamedValues &feeds, const runtime::RunOptions &options)
        -> support::Expected<runtime::NamedValues> {
        auto run = runExternal(command, modelPath, model, feeds);
        if (!run)
            return run.takeError();
        return replayImported(model, *run, options);
    };
    side.runModel = [command](const ir::Model &other, const runtime::NamedValues &feeds) -> support::Expected<runtime::NamedValues> {
        TemporaryFolder work;
        const std::string path = work.path() + "/model.onnx";
        if (work.path().empty() || !ir::saveModelFile(other, path))
            return makeError("external-failed", "cannot write the model for the external command");
        auto run = runExternal(command, path, other, feeds);
        if (!run)
            return run.takeError();
        return replayImported(other, *run, {});
    };
    return side;
}

} // namespace portolan::compare
