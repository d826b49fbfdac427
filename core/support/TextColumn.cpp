#include "support/TextColumn.h"

namespace portolan::support {

namespace {

bool continuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

std::size_t characters(const std::string &text)
{
    std::size_t n = 0;
    for (const char c : text)
        n += continuationByte(c) ? 0 : 1;
    return n;
}

} // namespace

std::string tailColumn(const std::string &text, std::size_t width)
{
    const std::size_t length = characters(text);
    if (length <= width)
        return text + std::string(width - length, ' ');
    if (width == 0)
        return {};
    // keep the last width-1 characters: walk back from the end over whole UTF-8 sequences
    std::size_t start = text.size();
    for (std::size_t kept = 0; kept < width - 1 && start > 0;) {
        --start;
        if (!continuationByte(text[start]))
            ++kept;
    }
    return "…" + text.substr(start);
}

} // namespace portolan::support
