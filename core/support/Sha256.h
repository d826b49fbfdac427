// SHA-256 (FIPS 180-4) of bytes or of a file: the model hash a port report carries, without Qt.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace portolan::support {

/// The digest of `bytes` as 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);
/// The digest of the file at `path`, read in blocks; nullopt when it cannot be read.
std::optional<std::string> sha256HexOfFile(const std::string &path);

} // namespace portolan::support
