#include "support/StagedFile.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace portolan::support {

StagedFile::StagedFile(std::string path, std::string temporary, int fd)
    : m_path(std::move(path)), m_temporary(std::move(temporary)), m_fd(fd)
{
}

StagedFile::StagedFile(StagedFile &&other) noexcept
    : m_path(std::move(other.m_path)), m_temporary(std::move(other.m_temporary)), m_fd(other.m_fd),
      m_committed(other.m_committed)
{
    other.m_fd = -1;
    other.m_committed = true; // the moved-from object owns nothing to clean up
}

StagedFile::~StagedFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed)
        ::unlink(m_temporary.c_str());
}

Expected<StagedFile> StagedFile::create(std::string path)
{
    std::string temporary = path + ".XXXXXX";
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC); // not inherited by a child (external runners)
    if (fd < 0)
        return makeError("cannot-write", std::string("cannot create a file beside it: ") + std::strerror(errno), path);
    ::fchmod(fd, 0644); // mkstemp creates 0600; what Portolan writes is an ordinary file
    return StagedFile(std::move(path), std::move(temporary), fd);
}

Status StagedFile::commit(bool writeOk, Overwrite overwrite)
{
    const bool complete = writeOk && m_fd >= 0 && ::fsync(m_fd) == 0;
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    if (!complete)
        return makeError("cannot-write", "writing failed (disk full?)", m_path);
    int moved = 0;
    if (overwrite == Overwrite::Allow) {
        moved = ::rename(m_temporary.c_str(), m_path.c_str());
    } else {
        // fails if the file appeared meanwhile; filesystems without hard links get rename's no-replace form
        moved = ::link(m_temporary.c_str(), m_path.c_str());
        if (moved != 0 && (errno == EPERM || errno == EOPNOTSUPP || errno == EXDEV)) {
            moved = ::renameat2(AT_FDCWD, m_temporary.c_str(), AT_FDCWD, m_path.c_str(), RENAME_NOREPLACE);
            if (moved == 0) {
                m_committed = true;
                return Status::ok();
            }
        }
    }
    const int err = errno;
    if (moved != 0) {
        if (err == EEXIST)
            return makeError("file-exists", "refusing to overwrite an existing file (use --force)", m_path);
        return makeError("cannot-write", std::string("cannot move the file into place: ") + std::strerror(err), m_path);
    }
    if (overwrite == Overwrite::Refuse)
        ::unlink(m_temporary.c_str());
    m_committed = true;
    return Status::ok();
}

Status writeFileWhole(const std::string &path, const std::function<bool(int fd)> &write, Overwrite overwrite)
{
    auto staged = StagedFile::create(path);
    if (!staged)
        return staged.takeError();
    return staged->commit(write(staged->fd()), overwrite);
}

bool writeAll(int fd, const void *data, std::size_t size)
{
    const auto *bytes = static_cast<const char *>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, bytes, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

Status writeFileWhole(const std::string &path, std::string_view bytes, Overwrite overwrite)
{
    return writeFileWhole(path, [bytes](int fd) { return writeAll(fd, bytes.data(), bytes.size()); }, overwrite);
}

} // namespace portolan::support
