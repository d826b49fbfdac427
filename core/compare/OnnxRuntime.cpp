// Installing onnxruntime-node, marking the tensors its optimized graph keeps, and running it.
#include "compare/OnnxRuntime.h"

#include "compare/OnnxRuntimeScript.h"
#include "compare/Shell.h"
#include "ir/ModelSaver.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <unordered_set>

namespace portolan::compare {

using support::makeError;
namespace fs = std::filesystem;

namespace {

std::string environment(const char *name)
{
    const char *value = std::getenv(name);
    return value ? value : "";
}

/// The shell words that run the script at `level` with the cache's modules.
std::string runner(const OnnxRuntimeInstall &install, const std::string &level)
{
    return "NODE_PATH=" + shellQuoted(install.cacheDir + "/node_modules") + " PORTOLAN_ORT_LEVEL=" + level + " node " +
           shellQuoted(install.script);
}

/// Writes a copy of `model` to `markedPath` with every main-graph tensor that ORT's optimized graph
/// (at `optimizedPath`) still computes as an extra output.
support::Status markKeptTensors(const ir::Model &model, const std::string &optimizedPath, const std::string &markedPath)
{
    onnx::ModelProto optimized;
    std::ifstream in(optimizedPath, std::ios::binary);
    if (!in || !optimized.ParseFromIstream(&in))
        return makeError("external-failed", "cannot read the model ONNX Runtime optimized", optimizedPath);
    std::unordered_set<std::string> kept;
    for (const onnx::NodeProto &node : optimized.graph().node())
        kept.insert(node.output().begin(), node.output().end());
    onnx::ModelProto proto = ir::toModelProto(model);
    std::unordered_set<std::string> outputs;
    for (const onnx::ValueInfoProto &out : proto.graph().output())
        outputs.insert(out.name());
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        const ir::Node &node = model.node(n);
        if (!node.alive || node.isConstant())
            continue;
        for (const ir::ValueId v : node.outputs)
            if (v.valid() && kept.contains(model.value(v).name) && outputs.insert(model.value(v).name).second)
                proto.mutable_graph()->add_output()->set_name(model.value(v).name); // ORT infers the type
    }
    std::ofstream out(markedPath, std::ios::binary);
    if (!out || !proto.SerializeToOstream(&out))
        return makeError("external-failed", "cannot write the model with ONNX Runtime's kept tensors marked", markedPath);
    return support::Status::ok();
}

/// The marked model of onnxRuntimeSide, made at its first run and kept for the later ones (the
/// kernel check's, the GPU profile's): ORT's optimization depends on the model and level alone.
struct MarkedModel {
    TemporaryFolder folder;
    std::string path; ///< empty until made
};

} // namespace

bool isOnnxRuntimeLevel(const std::string &level)
{
    return level == "disabled" || level == "basic" || level == "extended" || level == "all";
}

std::string onnxRuntimeCacheDir()
{
    if (const std::string set = environment("PORTOLAN_ORT_CACHE"); !set.empty())
        return set;
    std::string base = environment("XDG_CACHE_HOME");
    if (base.empty())
        base = environment("HOME").empty() ? fs::temp_directory_path().string() : environment("HOME") + "/.cache";
    return base + "/portolan/onnxruntime-node-" + kOnnxRuntimeNodeVersion;
}

support::Expected<OnnxRuntimeInstall> installOnnxRuntime(double timeoutSeconds)
{
    OnnxRuntimeInstall install{onnxRuntimeCacheDir(), ""};
    install.script = install.cacheDir + "/portolan-onnxruntime.js";
    std::error_code ec;
    fs::create_directories(install.cacheDir, ec);
    if (ec)
        return makeError("ort-unavailable", "cannot create ONNX Runtime's cache folder: " + ec.message(), install.cacheDir);
    auto node = runShell("node --version", 30);
    if (!node || !commandSucceeded(*node, "node --version", "node", 30, "").ok())
        return makeError("ort-unavailable", "ONNX Runtime runs on Node.js, and 'node' was not found (Debian: apt install nodejs npm)");
    // one install at a time (tests and windows may ask at once); the lock goes with the descriptor
    const std::string lockPath = install.cacheDir + "/.install.lock";
    const int lock = open(lockPath.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX) != 0)
        return makeError("ort-unavailable", "cannot lock ONNX Runtime's cache folder", lockPath);
    struct Unlock {
        int fd;
        ~Unlock() { close(fd); }
    } unlock{lock};
    const std::string package = install.cacheDir + "/node_modules/onnxruntime-node/package.json";
    if (!fs::exists(package)) {
        const std::string npm = "cd " + shellQuoted(install.cacheDir) + " && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@" +
                                kOnnxRuntimeNodeVersion;
        auto installed = runShell(npm, timeoutSeconds);
        if (!installed)
            return installed.takeError();
        if (auto st = commandSucceeded(*installed, npm, "installing onnxruntime-node with npm", timeoutSeconds, "--external-timeout"); !st)
            return makeError("ort-unavailable", st.error().primary.message + " (npm and its registry must be reachable; "
                                                "PORTOLAN_ORT_CACHE can point at a folder where it is installed)", npm);
    }
    std::ostringstream current; // the script this build embeds, written when it differs
    if (std::ifstream existing(install.script); existing)
        current << existing.rdbuf();
    if (current.str() != kOnnxRuntimeScript) {
        std::ofstream script(install.script, std::ios::binary | std::ios::trunc);
        if (!(script << kOnnxRuntimeScript))
            return makeError("ort-unavailable", "cannot write the ONNX Runtime runner", install.script);
    }
    return install;
}

ExternalCommand onnxRuntimeCommand(const OnnxRuntimeInstall &install, const std::string &level, double timeoutSeconds)
{
    return {runner(install, level) + " {model} {inputs} {outputs}", timeoutSeconds};
}

RunSide onnxRuntimeSide(const ir::Model &model, const std::string &modelPath, const std::string &level,
                        const OnnxRuntimeInstall &install, double timeoutSeconds)
{
    const ExternalCommand command = onnxRuntimeCommand(install, level, timeoutSeconds);
    RunSide side = externalSide(model, modelPath, command);
    side.label = "ort:" + level;
    auto marked = std::make_shared<MarkedModel>();
    side.run = [&model, modelPath, level, install, command, marked](const runtime::NamedValues &feeds,
                                                                     const runtime::RunOptions &options)
        -> support::Expected<runtime::NamedValues> {
        if (marked->path.empty()) {
            if (marked->folder.path().empty())
                return makeError("external-failed", "cannot create a temporary folder");
            const std::string optimized = marked->folder.path() + "/optimized.onnx", path = marked->folder.path() + "/marked.onnx";
            const std::string optimize = runner(install, level) + " --save-optimized " + shellQuoted(optimized) + " " + shellQuoted(modelPath);
            auto finished = runShell(optimize, command.timeoutSeconds);
            if (!finished)
                return finished.takeError();
            if (auto st = commandSucceeded(*finished, optimize, "ONNX Runtime's optimizer", command.timeoutSeconds, "--external-timeout"); !st)
                return st.error();
            if (auto st = markKeptTensors(model, optimized, path); !st)
                return st.error();
            marked->path = path;
        }
        auto run = runExternal(command, marked->path, model, feeds);
        if (!run)
            return run.takeError();
        return replayImported(model, *run, options);
    };
    return side;
}

} // namespace portolan::compare
