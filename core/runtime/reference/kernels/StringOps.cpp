// The string ops of opset 20: RegexFullMatch (RE2, as the spec names it), StringConcat (broadcasting)
// and StringSplit (at a delimiter, or at runs of whitespace). Strings are byte sequences meant to be
// UTF-8; only RegexFullMatch and the whitespace rule of StringSplit look at code points.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace portolan::runtime::kernels {

namespace {

support::Status requireStrings(const KernelContext &ctx, const Tensor &t, const char *what)
{
    if (t.dataType() != TensorProto::STRING)
        return ctx.error(std::string(what) + " must be a string tensor, got " + ir::dataTypeName(t.dataType()));
    return support::Status::ok();
}

// The attribute `name` when present, after checking its kind (a malformed node must not be read as
// another kind's empty field).
support::Expected<const ir::Attribute *> typedAttribute(const KernelContext &ctx, const char *name,
                                                         onnx::AttributeProto::AttributeType kind)
{
    const ir::Attribute *a = ctx.attribute(name);
    if (a && a->proto.type() != kind)
        return ctx.error(std::string("attribute ") + name + " must be " +
                         (kind == onnx::AttributeProto::STRING ? "a string" : "an int"));
    return a;
}

} // namespace

// Y[i] = whether all of X[i] matches `pattern` (RE2 syntax, UTF-8 mode: RE2's defaults, as ONNX
// Runtime uses them). The pattern is compiled once per call; RE2 bounds its own memory (max_mem) and
// matches in linear time, so a hostile pattern or string costs no more than its size.
support::Status regexFullMatch(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (auto st = requireStrings(ctx, x, "X"); !st)
        return st;
    auto attribute = typedAttribute(ctx, "pattern", onnx::AttributeProto::STRING);
    if (!attribute)
        return attribute.takeError();
    if (!*attribute)
        return ctx.error("needs the attribute pattern (the regular expression to match)");
    const std::string &pattern = (*attribute)->proto.s();
    RE2::Options options; // UTF-8, longest_match off, case-sensitive: the spec's plain RE2 syntax
    options.set_log_errors(false); // a bad pattern is reported below, not on stderr
    const RE2 regex(pattern, options);
    if (!regex.ok())
        return ctx.error("pattern '" + pattern + "' is not a valid RE2 regular expression: " + regex.error());
    auto out = ctx.allocateUninitialized(TensorProto::BOOL, x.shape());
    if (!out)
        return out.takeError();
    std::uint8_t *y = out->mutableData<std::uint8_t>();
    const std::vector<std::string> &strings = x.strings();
    for (std::size_t i = 0; i < strings.size(); ++i)
        y[i] = RE2::FullMatch(strings[i], regex) ? 1 : 0;
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

// Z = X + Y elementwise over the numpy broadcast of the two shapes.
support::Status stringConcat(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Tensor &y = ctx.input(1);
    if (auto st = requireStrings(ctx, x, "X"); !st)
        return st;
    if (auto st = requireStrings(ctx, y, "Y"); !st)
        return st;
    const auto shape = broadcastShapes({x.shape(), y.shape()});
    if (!shape)
        return ctx.error("cannot broadcast " + shapeString(x.shape()) + " with " + shapeString(y.shape()));
    // The element count is checked first (so the loop below is bounded), then the characters: allocate()
    // counts a string tensor's elements only, and broadcasting repeats each input string many times.
    auto headers = ctx.bytesWithinBudget(TensorProto::STRING, *shape);
    if (!headers)
        return headers.takeError();
    const std::int64_t count = elementCount(*shape);
    const std::vector<std::string> &xs = x.strings(), &ys = y.strings();
    // Stops counting at 2^61 bytes (past any real cap), so no sum below can overflow: a std::string holds
    // under 2^62 bytes.
    constexpr std::uint64_t saturated = std::uint64_t(1) << 61;
    std::uint64_t characters = 0;
    {
        BroadcastWalker walk(*shape, {x.shape(), y.shape()});
        for (std::int64_t i = 0; i < count && characters < saturated; ++i, walk.next())
            characters += xs[static_cast<std::size_t>(walk.offset(0))].size() +
                          ys[static_cast<std::size_t>(walk.offset(1))].size();
    }
    const std::uint64_t bytes = std::min(characters, saturated) + std::min<std::uint64_t>(*headers, saturated);
    if (auto total = ctx.bytesWithinBudget(TensorProto::UINT8, {static_cast<std::int64_t>(bytes)}); !total)
        return total.takeError(); // "would allocate N bytes for uint8[N]": the characters and the elements
    auto out = ctx.allocateUninitialized(TensorProto::STRING, *shape); // every element assigned below
    if (!out)
        return out.takeError();
    std::vector<std::string> &zs = out->mutableStrings();
    BroadcastWalker walk(*shape, {x.shape(), y.shape()});
    for (std::int64_t i = 0; i < count; ++i, walk.next()) {
        const std::string &a = xs[static_cast<std::size_t>(walk.offset(0))];
        const std::string &b = ys[static_cast<std::size_t>(walk.offset(1))];
        std::string &z = zs[static_cast<std::size_t>(i)];
        z.reserve(a.size() + b.size());
        z.append(a).append(b);
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

namespace {

// Whitespace as Python's str.split() sees it (str.isspace(): ASCII \t \n \v \f \r, \x1c-\x1f and
// space, and the Unicode spaces U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000), matched on their UTF-8 bytes: ONNX's reference splits with numpy's str.split.
// Bytes that are not valid UTF-8 are never whitespace.

/// The byte length of the whitespace character starting at s[i], or 0 when none starts there.
std::size_t whitespaceAt(std::string_view s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const std::size_t left = s.size() - i;
    const unsigned char c = b(0);
    if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20))
        return 1;
    if (c == 0xC2 && left >= 2 && (b(1) == 0x85 || b(1) == 0xA0))
        return 2;
    if (left < 3)
        return 0;
    if (c == 0xE1 && b(1) == 0x9A && b(2) == 0x80) // U+1680
        return 3;
    if (c == 0xE2 && b(1) == 0x80 && ((b(2) >= 0x80 && b(2) <= 0x8A) || b(2) == 0xA8 || b(2) == 0xA9 || b(2) == 0xAF))
        return 3; // U+2000-U+200A, U+2028, U+2029, U+202F
    if (c == 0xE2 && b(1) == 0x81 && b(2) == 0x9F) // U+205F
        return 3;
    if (c == 0xE3 && b(1) == 0x80 && b(2) == 0x80) // U+3000
        return 3;
    return 0;
}

/// The byte length of the whitespace character ending at s[end - 1], or 0. A UTF-8 character is
/// recognised from its lead byte, so trying each length from where it would start is exact.
std::size_t whitespaceBefore(std::string_view s, std::size_t end)
{
    for (std::size_t length = 1; length <= 3 && length <= end; ++length)
        if (whitespaceAt(s, end - length) == length)
            return length;
    return 0;
}

/// Where the next whitespace character at or after `from` starts (s.size() when none does).
std::size_t nextWhitespace(std::string_view s, std::size_t from)
{
    while (from < s.size() && !whitespaceAt(s, from))
        ++from;
    return from;
}

/// Where the next non-whitespace byte at or after `from` is (s.size() when none is).
std::size_t skipWhitespace(std::string_view s, std::size_t from)
{
    while (from < s.size())
        if (const std::size_t n = whitespaceAt(s, from))
            from += n;
        else
            break;
    return from;
}

/// Calls emit(piece) for each substring of `s`, in order, and returns how many there were.
/// `delimiter` empty: split at runs of whitespace, none leading or trailing (no pieces for a blank
/// string); otherwise at each occurrence of `delimiter`, so "a,,b" gives "a", "", "b" and "" gives
/// one empty piece. At most `maxSplits` splits (negative: no limit): the rest of the string is the
/// last piece, without its trailing whitespace in whitespace mode (the spec: "leading or trailing
/// whitespace is removed in the output").
template <typename Emit>
std::int64_t splitString(std::string_view s, std::string_view delimiter, std::int64_t maxSplits, Emit &&emit)
{
    std::int64_t pieces = 0;
    if (delimiter.empty()) {
        std::size_t start = skipWhitespace(s, 0);
        while (start < s.size()) {
            if (pieces == maxSplits) { // the remainder, trimmed at its end
                std::size_t end = s.size();
                for (std::size_t n; (n = whitespaceBefore(s, end)) && n <= end - start;)
                    end -= n;
                emit(s.substr(start, end - start));
                return pieces + 1;
            }
            const std::size_t end = nextWhitespace(s, start);
            emit(s.substr(start, end - start));
            ++pieces;
            start = skipWhitespace(s, end);
        }
        return pieces;
    }
    std::size_t start = 0;
    while (true) {
        const std::size_t at = pieces == maxSplits ? std::string_view::npos : s.find(delimiter, start);
        if (at == std::string_view::npos) {
            emit(s.substr(start));
            return pieces + 1;
        }
        emit(s.substr(start, at - start));
        ++pieces;
        start = at + delimiter.size();
    }
}

} // namespace

// Y: X's shape plus an axis as long as the most pieces any element gave (0 when X is empty or every
// element gave none), padded with empty strings; Z: X's shape, each element's piece count. Two passes
// (count, then copy into Y) so no scratch outgrows the output; Y's characters are at most X's.
support::Status stringSplit(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (auto st = requireStrings(ctx, x, "X"); !st)
        return st;
    auto delimiterAttribute = typedAttribute(ctx, "delimiter", onnx::AttributeProto::STRING);
    if (!delimiterAttribute)
        return delimiterAttribute.takeError();
    auto maxsplitAttribute = typedAttribute(ctx, "maxsplit", onnx::AttributeProto::INT);
    if (!maxsplitAttribute)
        return maxsplitAttribute.takeError();
    // Unset and "" both mean whitespace splitting (the spec says so of both).
    const std::string delimiter = *delimiterAttribute ? (*delimiterAttribute)->proto.s() : std::string();
    // Unset: no limit. A negative value also means none, as in Python's str.split(), which ONNX's
    // reference implementation calls (the spec gives negative values no other meaning).
    const std::int64_t maxSplits = *maxsplitAttribute ? (*maxsplitAttribute)->proto.i() : -1;

    auto counts = ctx.allocateUninitialized(TensorProto::INT64, x.shape()); // every element written
    if (!counts)
        return counts.takeError();
    const std::vector<std::string> &xs = x.strings();
    std::int64_t *z = counts->mutableData<std::int64_t>();
    std::int64_t widest = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        z[i] = splitString(xs[i], delimiter, maxSplits, [](std::string_view) {});
        widest = std::max(widest, z[i]);
    }
    Shape splitShape = x.shape();
    splitShape.push_back(widest);
    auto pieces = ctx.allocate(TensorProto::STRING, splitShape); // empty strings: the padding
    if (!pieces)
        return pieces.takeError();
    std::vector<std::string> &ys = pieces->mutableStrings();
    for (std::size_t i = 0; i < xs.size(); ++i) {
        std::size_t slot = i * static_cast<std::size_t>(widest);
        splitString(xs[i], delimiter, maxSplits, [&](std::string_view piece) { ys[slot++].assign(piece); });
    }
    if (ctx.wantsOutput(0))
        ctx.setOutput(0, std::move(*pieces));
    if (ctx.wantsOutput(1))
        ctx.setOutput(1, std::move(*counts));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
