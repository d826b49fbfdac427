// JsonWriter implementation: escaping per RFC 8259, non-finite numbers written as null.
#include "support/JsonWriter.h"

#include <cmath>
#include <cstdio>

namespace portolan::support {

std::string JsonWriter::quote(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned char>(c));
                out += buffer;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

void JsonWriter::newline()
{
    if (m_indent <= 0)
        return;
    m_out += '\n';
    m_out.append(m_firstInScope.size() * static_cast<std::size_t>(m_indent), ' ');
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_firstInScope.empty())
        return;
    if (!m_firstInScope.back())
        m_out += ',';
    m_firstInScope.back() = false;
    newline();
}

JsonWriter &JsonWriter::beginObject()
{
    beforeValue();
    m_out += '{';
    m_firstInScope.push_back(true);
    return *this;
}

void JsonWriter::closeScope(char closer)
{
    const bool empty = m_firstInScope.back();
    m_firstInScope.pop_back();
    if (!empty)
        newline();
    m_out += closer;
}

JsonWriter &JsonWriter::endObject()
{
    closeScope('}');
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    beforeValue();
    m_out += '[';
    m_firstInScope.push_back(true);
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    closeScope(']');
    return *this;
}

JsonWriter &JsonWriter::key(std::string_view name)
{
    beforeValue();
    m_out += quote(name);
    m_out += m_indent > 0 ? ": " : ":";
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(std::string_view text)
{
    beforeValue();
    m_out += quote(text);
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    beforeValue();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter &JsonWriter::value(std::int64_t number)
{
    beforeValue();
    m_out += std::to_string(number);
    return *this;
}

JsonWriter &JsonWriter::value(std::uint64_t number)
{
    beforeValue();
    m_out += std::to_string(number);
    return *this;
}

JsonWriter &JsonWriter::value(double number)
{
    beforeValue();
    if (!std::isfinite(number)) {
        m_out += "null";
        return *this;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", number);
    m_out += buffer;
    return *this;
}

JsonWriter &JsonWriter::null()
{
    beforeValue();
    m_out += "null";
    return *this;
}

} // namespace portolan::support
