// Running a command through /bin/sh in its own process group against a deadline, and the
// temporary folders such commands work in.
#pragma once

#include "support/Expected.h"

#include <string>

namespace portolan::compare {

/// A fresh folder under the system's temporary directory, removed with everything in it.
class TemporaryFolder {
public:
    TemporaryFolder();
    ~TemporaryFolder();
    TemporaryFolder(const TemporaryFolder &) = delete;
    TemporaryFolder &operator=(const TemporaryFolder &) = delete;
    /// Empty when the folder could not be made.
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

/// `text` in single quotes for the shell.
std::string shellQuoted(const std::string &text);

struct Finished {
    bool timedOut = false;
    int status = 0;      ///< waitpid's
    std::string output;  ///< stdout and stderr together, the last 4 KiB
};

/// Runs `command` through /bin/sh; past `timeoutSeconds` its whole process group is killed.
support::Expected<Finished> runShell(const std::string &command, double timeoutSeconds);

/// An error unless `finished` exited with status 0: it names `what` ("the external command"), the
/// timeout (and the option `timeoutOption` that sets it), the signal or the status, and the end of
/// its output; `command` is the error's location.
support::Status commandSucceeded(const Finished &finished, const std::string &command, const std::string &what,
                                 double timeoutSeconds, const std::string &timeoutOption);

} // namespace portolan::compare
