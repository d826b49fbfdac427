// Read-only memory mapping of a file (RAII): weights are viewed in place, never copied to display.
#pragma once

#include "support/Expected.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace portolan::support {

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
