// POSIX implementation of MappedFile.
#include "support/MappedFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace portolan::support {

MappedFile::MappedFile(std::string path, const std::byte *data, std::size_t size)
    : m_path(std::move(path)), m_data(data), m_size(size)
{
}

MappedFile::~MappedFile()
{
    if (m_data && m_size > 0)
        ::munmap(const_cast<std::byte *>(m_data), m_size);
}

ReadOnlyFile::~ReadOnlyFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Expected<ReadOnlyFile> ReadOnlyFile::open(const std::string &path)
{
    // O_NONBLOCK: opening a FIFO must not wait for a writer; non-regular files are refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return makeError("cannot-open", std::string("cannot open file: ") + std::strerror(errno), path);
    ReadOnlyFile file(fd, 0);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        return makeError("not-a-file", "not a regular file", path);
    file.m_size = static_cast<std::size_t>(info.st_size);
    return file;
}

Expected<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string &path)
{
    auto file = ReadOnlyFile::open(path);
    if (!file)
        return file.takeError();
    const std::size_t size = file->size();
    const std::byte *data = nullptr;
    if (size > 0) {
        void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->descriptor(), 0);
        if (mapped == MAP_FAILED)
            return makeError("cannot-map", std::string("cannot map file: ") + std::strerror(errno), path);
        data = static_cast<const std::byte *>(mapped);
    }
    return std::shared_ptr<const MappedFile>(new MappedFile(path, data, size));
}

} // namespace portolan::support
