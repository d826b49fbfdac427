// Names in fixed-width terminal tables: a long name keeps its tail, which is where exporter names
// differ ("/encoder/layers.10/self_attn/FusedMatMul_2"), and the column stays aligned.
#pragma once

#include <cstddef>
#include <string>

namespace portolan::support {

/// `text` padded with spaces to `width` characters, or "…" and its last width-1 characters when
/// longer. Widths count UTF-8 characters, not bytes.
std::string tailColumn(const std::string &text, std::size_t width);

} // namespace portolan::support
