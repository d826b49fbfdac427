// A small streaming JSON writer for the CLI's --json output and reports (core stays Qt-free).
#pragma once

#include "support/Diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::support {

/// Writes pretty-printed JSON. Calls must nest correctly: key() inside objects, values inside arrays.
class JsonWriter {
public:
    explicit JsonWriter(int indent = 2) : m_indent(indent) {}

    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(std::string_view name);

    JsonWriter &value(std::string_view text);
    JsonWriter &value(const char *text) { return value(std::string_view(text)); }
    JsonWriter &value(const std::string &text) { return value(std::string_view(text)); }
    JsonWriter &value(bool flag);
    JsonWriter &value(std::int64_t number);
    JsonWriter &value(std::uint64_t number);
    JsonWriter &value(int number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter &value(double number);
    JsonWriter &null();

    /// key(name) followed by value(v).
    template <typename T>
    JsonWriter &field(std::string_view name, const T &v) { key(name); return value(v); }

    const std::string &str() const { return m_out; }

    /// JSON string literal for `text`, quotes included.
    static std::string quote(std::string_view text);

private:
    void beforeValue();
    void newline();
    void closeScope(char closer);

    std::string m_out;
    std::vector<bool> m_firstInScope; // one entry per open object/array
    bool m_afterKey = false;
    int m_indent;
};

/// A finding as an object: severity, code, message, graph, node, value.
void writeDiagnostic(JsonWriter &w, const Diagnostic &d);

} // namespace portolan::support
