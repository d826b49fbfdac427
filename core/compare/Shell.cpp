// Spawning a command (fork, exec /bin/sh in its own process group, poll its output against a
// deadline) and the temporary folders commands work in.
#include "compare/Shell.h"

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

namespace portolan::compare {

using support::makeError;

TemporaryFolder::TemporaryFolder()
{
    std::string pattern = (std::filesystem::temp_directory_path() / "portolan-external-XXXXXX").string();
    if (mkdtemp(pattern.data()))
        m_path = pattern;
}

TemporaryFolder::~TemporaryFolder()
{
    std::error_code ec;
    if (!m_path.empty())
        std::filesystem::remove_all(m_path, ec);
}

std::string shellQuoted(const std::string &text)
{
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

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

support::Status commandSucceeded(const Finished &finished, const std::string &command, const std::string &what,
                                 double timeoutSeconds, const std::string &timeoutOption)
{
    const std::string tail = finished.output.empty() ? "" : "; its output ends:\n" + finished.output;
    if (finished.timedOut) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
        return makeError("external-timeout", what + " did not finish within " + std::string(seconds) + " s (" + timeoutOption +
                                                 ") and was killed" + tail, command);
    }
    if (WIFSIGNALED(finished.status))
        return makeError("external-failed", what + " was killed by signal " + std::to_string(WTERMSIG(finished.status)) + tail, command);
    if (WEXITSTATUS(finished.status) != 0)
        return makeError("external-failed", what + " exited with status " + std::to_string(WEXITSTATUS(finished.status)) +
                                                (WEXITSTATUS(finished.status) == 127 ? " (command not found?)" : "") + tail,
                         command);
    return support::Status::ok();
}

} // namespace portolan::compare
