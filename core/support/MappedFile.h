// Read-only memory mapping of a file (RAII): weights are viewed in place, never copied to display.
#pragma once

#include "support/Expected.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace portolan::support {

/// A regular file open for reading (closed on destruction), and its size.
class ReadOnlyFile {
public:
    /// Opens `path`; refuses what is not a regular file (a FIFO is not waited on).
    static Expected<ReadOnlyFile> open(const std::string &path);

    ReadOnlyFile(ReadOnlyFile &&other) noexcept : m_fd(other.m_fd), m_size(other.m_size) { other.m_fd = -1; }
    ReadOnlyFile(const ReadOnlyFile &) = delete;
    ReadOnlyFile &operator=(const ReadOnlyFile &) = delete;
    ReadOnlyFile &operator=(ReadOnlyFile &&) = delete;
    ~ReadOnlyFile();

    int descriptor() const { return m_fd; }
    std::size_t size() const { return m_size; }

private:
    ReadOnlyFile(int fd, std::size_t size) : m_fd(fd), m_size(size) {}

    int m_fd = -1;
    std::size_t m_size = 0;
};

class MappedFile {
public:
    /// Maps `path` read-only. An empty file maps to an empty span.
    static Expected<std::shared_ptr<const MappedFile>> open(const std::string &path);

    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    std::span<const std::byte> bytes() const { return {m_data, m_size}; }
    std::size_t size() const { return m_size; }
    const std::string &path() const { return m_path; }

private:
    MappedFile(std::string path, const std::byte *data, std::size_t size);

    std::string m_path;
    const std::byte *m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace portolan::support
