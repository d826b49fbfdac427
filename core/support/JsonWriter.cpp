// JsonWriter implementation: escaping per RFC 8259, non-finite numbers written as null.
#include "support/JsonWriter.h"

#include <cmath>
#include <cstdio>

namespace portolan::support {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not valid UTF-8.
static std::size_t utf8SequenceLength(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k)
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
    if ((length == 2 && lead < 0xc2) || (length == 3 && lead == 0xe0 && byte(i + 1) < 0xa0) ||
        (length == 4 && (lead > 0xf4 || (lead == 0xf0 && byte(i + 1) < 0x90))))
        return 0; // overlong or beyond U+10FFFF
    return length;
}

std::string JsonWriter::quote(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            // names in a hostile file need not be UTF-8: invalid bytes become U+FFFD
            const std::size_t length = utf8SequenceLength(text, i);
            if (length == 0) {
                out += "\ufffd";
            } else {
                out.append(text.substr(i, length));
                i += length - 1;
            }
            continue;
        }
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

void writeDiagnostic(JsonWriter &w, const Diagnostic &d)
{
    w.beginObject();
    w.field("severity", severityName(d.severity));
    w.field("code", d.code);
    w.field("message", d.message);
    w.field("graph", d.graph);
    w.field("node", d.node);
    w.field("value", d.value);
    w.endObject();
}

} // namespace portolan::support
