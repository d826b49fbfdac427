// Expected<T>: a value or the error that prevented it (C++20 has no std::expected yet).
#pragma once

#include "support/Diagnostic.h"

#include <cassert>
#include <utility>
#include <variant>

namespace portolan::support {

/// The error side of Expected: one primary diagnostic plus any that came with it.
struct Error {
    Diagnostic primary;
    Diagnostics related;

    std::string format() const { return primary.format(); }
};

/// Builds an Error from its parts; `code` is the stable key, `message` the sentence.
Error makeError(std::string code, std::string message, std::string model = {},
                std::string node = {}, std::string value = {});

template <typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : m_state(std::move(value)) {}
    Expected(Error error) : m_state(std::move(error)) {}

    bool hasValue() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return hasValue(); }

    T &value() & { assert(hasValue()); return std::get<T>(m_state); }
    const T &value() const & { assert(hasValue()); return std::get<T>(m_state); }
    T &&value() && { assert(hasValue()); return std::get<T>(std::move(m_state)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T &&operator*() && { return std::move(*this).value(); }

    const Error &error() const { assert(!hasValue()); return std::get<Error>(m_state); }
    Error &&takeError() { assert(!hasValue()); return std::get<Error>(std::move(m_state)); }

private:
    std::variant<T, Error> m_state;
};

/// Success or an Error, for operations that return nothing.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_ok(false) {}
    static Status ok() { return {}; }

    bool isOk() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error &error() const { assert(!m_ok); return m_error; }

private:
    Error m_error;
    bool m_ok = true;
};

} // namespace portolan::support
