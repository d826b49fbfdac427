// Spawning the external command (fork, exec /bin/sh in its own process group, poll its stderr
// against a deadline) and the temporary folders it works in.
#include "compare/ExternalRun.h"

#include "runtime/NumpyFiles.h"
#include "ir/ModelSaver.h"
#include "runtime/TensorProtoIO.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace portolan::compare {

using support::makeError;

namespace {

/// A fresh folder under the system's temporary directory, removed with everything in it.
class TemporaryFolder {
public:
    TemporaryFolder()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "portolan-external-XXXXXX").string();
        if (mkdtemp(pattern.data()))
            m_path = pattern;
    }
    ~TemporaryFolder()
    {
        std::error_code ec;
        if (!m_path.empty())
            std::filesystem::remove_all(m_path, ec);
    }
    TemporaryFolder(const TemporaryFolder &) = delete;
    TemporaryFolder &operator=(const TemporaryFolder &) = delete;
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

std::string shellQuoted(const std::string &text)
{
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

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

struct Finished {
    bool timedOut = false;
    int status = 0;      ///< waitpid's
    std::string output;  ///< stdout and stderr together, the last 4 KiB
};

support::Expected<Finished> runShell(const std::string &command, double timeoutSeconds)
{
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0)
        return makeError("external-failed", std::string("cannot create a pipe: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid < 0)
        return makeError("external-failed", std::string("cannot fork: ") + std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0); // its own group, so a timeout kills what it started too
        dup2(pipeEnds[1], STDOUT_FILENO);
        dup2(pipeEnds[1], STDERR_FILENO);
        close(pipeEnds[0]);
        close(pipeEnds[1]);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    close(pipeEnds[1]);
    Finished finished;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    char buffer[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            finished.timedOut = true;
            break;
        }
        pollfd watch{pipeEnds[0], POLLIN, 0};
        const int ready = poll(&watch, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        const ssize_t n = read(pipeEnds[0], buffer, sizeof buffer);
        if (n <= 0)
            break; // end of output: the command (and everything holding the pipe) is done
        finished.output.append(buffer, static_cast<std::size_t>(n));
        if (finished.output.size() > 8192)
            finished.output.erase(0, finished.output.size() - 4096);
    }
    close(pipeEnds[0]);
    // its output closed; it may still be running (a daemon holding no pipe): wait up to the deadline
    while (!finished.timedOut && waitpid(pid, &finished.status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= deadline)
            finished.timedOut = true;
        else
            usleep(10000);
    }
    if (finished.timedOut) {
        kill(-pid, SIGKILL);
        waitpid(pid, &finished.status, 0);
    }
    if (finished.output.size() > 4096)
        finished.output.erase(0, finished.output.size() - 4096);
    return finished;
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
    const std::string tail = finished->output.empty() ? "" : "; its output ends:\n" + finished->output;
    if (finished->timedOut)
    {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", command.timeoutSeconds);
        return makeError("external-timeout", "the external command did not finish within " + std::string(seconds) +
                                                 " s (--external-timeout) and was killed" + tail, shell);
    }
    if (WIFSIGNALED(finished->status))
        return makeError("external-failed", "the external command was killed by signal " + std::to_string(WTERMSIG(finished->status)) + tail,
                         shell);
    if (WEXITSTATUS(finished->status) != 0)
        return makeError("external-failed", "the external command exited with status " + std::to_string(WEXITSTATUS(finished->status)) +
                                                (WEXITSTATUS(finished->status) == 127 ? " (command not found?)" : "") + tail,
                         shell);
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
