// Files written whole or not at all: the bytes go to a uniquely named temporary file beside the
// target, are flushed to disk, and only then move into place in one step. A reader never sees half a
// file, an existing file is replaced only when asked, and a file being read (a model's own external
// data) keeps its bytes for whoever has it open or mapped.
#pragma once

#include "support/Expected.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace portolan::support {

enum class Overwrite { Refuse, Allow };

class StagedFile {
public:
    /// Creates the temporary file beside `path` (its folder must exist).
    static Expected<StagedFile> create(std::string path);
    StagedFile(StagedFile &&other) noexcept;
    StagedFile &operator=(StagedFile &&) = delete;
    ~StagedFile(); ///< removes the temporary file unless committed

    int fd() const { return m_fd; }
    const std::string &path() const { return m_path; }

    /// Flushes and closes the temporary file, then moves it to `path` (refusing an existing file
    /// unless `overwrite` is Allow). `writeOk` false: the caller's writes failed; nothing is moved.
    Status commit(bool writeOk, Overwrite overwrite);

private:
    StagedFile(std::string path, std::string temporary, int fd);
    std::string m_path;
    std::string m_temporary;
    int m_fd = -1;
    bool m_committed = false;
};

/// Writes all `size` bytes to `fd`, retrying short and interrupted writes; false on an error.
bool writeAll(int fd, const void *data, std::size_t size);

/// Writes `bytes` to `path` through a StagedFile.
Status writeFileWhole(const std::string &path, std::string_view bytes, Overwrite overwrite);

/// Writes `path` through a StagedFile with `write`, which returns false on a failed write.
Status writeFileWhole(const std::string &path, const std::function<bool(int fd)> &write, Overwrite overwrite);

} // namespace portolan::support
