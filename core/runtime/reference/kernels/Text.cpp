// Text kernels: StringNormalizer (stop words, case changes on UTF-8 text) and TfIdfVectorizer (n-gram
// counts with skips over int or string tokens).
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"

#include <algorithm>
#include <cwctype>
#include <locale.h>
#include <map>
#include <set>
#include <wctype.h>

namespace portolan::runtime::kernels {

namespace {

// Case mapping of UTF-8 text, code point by code point, with the C.UTF-8 (or the node's) locale; bytes
// that are not valid UTF-8 pass through unchanged. Without a UTF-8 locale only ASCII letters change.
class CaseMapper {
public:
    explicit CaseMapper(const std::string &locale)
    {
        for (const std::string &name : {locale + ".UTF-8", locale, std::string("C.UTF-8"), std::string("C.utf8")})
            if (!name.empty() && name[0] != '.' && (m_locale = ::newlocale(LC_CTYPE_MASK, name.c_str(), nullptr)))
                break;
    }
    ~CaseMapper()
    {
        if (m_locale)
            ::freelocale(m_locale);
    }
    CaseMapper(const CaseMapper &) = delete;
    CaseMapper &operator=(const CaseMapper &) = delete;

    std::string map(const std::string &s, bool upper) const
    {
        std::string out;
        out.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            std::size_t length = 0;
            const char32_t c = decode(s, i, length);
            if (!length) { // invalid byte
                out += s[i++];
                continue;
            }
            char32_t mapped = c;
            if (m_locale)
                mapped = static_cast<char32_t>(upper ? ::towupper_l(static_cast<wint_t>(c), m_locale)
                                                     : ::towlower_l(static_cast<wint_t>(c), m_locale));
            else if (c < 128)
                mapped = static_cast<char32_t>(upper ? std::toupper(static_cast<int>(c)) : std::tolower(static_cast<int>(c)));
            encode(mapped, out);
            i += length;
        }
        return out;
    }

private:
    static char32_t decode(const std::string &s, std::size_t i, std::size_t &length)
    {
        const auto b0 = static_cast<unsigned char>(s[i]);
        const std::size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
        if (!n || i + n > s.size())
            return 0;
        char32_t c = n == 1 ? b0 : b0 & (0x7F >> n);
        for (std::size_t k = 1; k < n; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if ((b >> 6) != 2)
                return 0;
            c = (c << 6) | (b & 0x3F);
        }
        length = n;
        return c;
    }
    static void encode(char32_t c, std::string &out)
    {
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (c < 0x800) {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += static_cast<char>(0xE0 | (c >> 12));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (c >> 18));
            out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }

    locale_t m_locale = nullptr;
};

} // namespace

// Input [C] or [1, C]; stop words are dropped (compared case-insensitively unless is_case_sensitive),
// then case_change_action applies. All dropped gives [""] ([1, 1] for a [1, C] input).
support::Status stringNormalizer(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (x.dataType() != TensorProto::STRING)
        return ctx.error("needs a string input, got " + ir::dataTypeName(x.dataType()));
    if (!(x.rank() == 1 || (x.rank() == 2 && x.dim(0) == 1)))
        return ctx.error("the input must be [C] or [1, C], got " + shapeString(x.shape()));
    const std::string action = ctx.attrString("case_change_action", "NONE");
    if (action != "NONE" && action != "LOWER" && action != "UPPER")
        return ctx.error("case_change_action must be NONE, LOWER or UPPER, got '" + action + "'");
    const bool caseSensitive = ctx.attrInt("is_case_sensitive", 0) != 0;
    const CaseMapper mapper(ctx.attrString("locale", ""));
    std::set<std::string> stopwords;
    for (const std::string &w : ctx.attrStrings("stopwords"))
        stopwords.insert(caseSensitive ? w : mapper.map(w, false));
    std::vector<std::string> kept;
    for (const std::string &s : x.strings())
        if (!stopwords.contains(caseSensitive ? s : mapper.map(s, false)))
            kept.push_back(action == "NONE" ? s : mapper.map(s, action == "UPPER"));
    if (kept.empty())
        kept.emplace_back();
    const auto count = static_cast<std::int64_t>(kept.size());
    auto out = ctx.allocate(TensorProto::STRING, x.rank() == 1 ? Shape{count} : Shape{1, count});
    if (!out)
        return out.takeError();
    out->mutableStrings() = std::move(kept);
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

namespace {

// Counts, per row, the pool's n-grams whose tokens sit skip + 1 apart (skip in [0, max_skip_count]; a
// unigram is counted once, not once per skip), then applies TF, IDF or TFIDF weighting.
template <typename Token>
support::Status countNgrams(KernelContext &ctx, const std::vector<Token> &tokens, const std::vector<Token> &pool)
{
    const Tensor &x = ctx.input(0);
    const std::int64_t minN = ctx.attrInt("min_gram_length", 0), maxN = ctx.attrInt("max_gram_length", 0);
    const std::int64_t maxSkip = ctx.attrInt("max_skip_count", 0);
    const std::string mode = ctx.attrString("mode");
    const std::vector<std::int64_t> starts = ctx.attrInts("ngram_counts"), indexes = ctx.attrInts("ngram_indexes");
    const std::vector<float> weights = ctx.attrFloats("weights");
    if (minN < 1 || maxN < minN || maxSkip < 0)
        return ctx.error("needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
        return ctx.error("mode must be TF, IDF or TFIDF, got '" + mode + "'");

    // the pool: section k (from starts[k]) holds (k + 1)-grams
    std::map<std::vector<Token>, std::size_t> ngramPosition;
    std::size_t position = 0;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const std::int64_t begin = starts[k];
        const std::int64_t end = k + 1 < starts.size() ? starts[k + 1] : static_cast<std::int64_t>(pool.size());
        const auto n = static_cast<std::int64_t>(k + 1);
        if (begin < 0 || end < begin || end > static_cast<std::int64_t>(pool.size()) || (end - begin) % n != 0)
            return ctx.error("ngram_counts does not split the pool into whole " + std::to_string(n) + "-grams");
        for (std::int64_t i = begin; i < end; i += n)
            ngramPosition.emplace(std::vector<Token>(pool.begin() + i, pool.begin() + i + n), position++);
    }
    if (indexes.size() != position || (!weights.empty() && weights.size() != position))
        return ctx.error("ngram_indexes (and weights, when given) need one entry per pool n-gram (" +
                         std::to_string(position) + ")");
    std::int64_t width = 0;
    for (const std::int64_t i : indexes) {
        if (i < 0)
            return ctx.error("ngram_indexes must not be negative");
        width = std::max(width, i + 1);
    }
    const std::int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    const std::int64_t columns = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    auto out = ctx.allocate(TensorProto::FLOAT, x.rank() == 2 ? Shape{rows, width} : Shape{width});
    if (!out)
        return out.takeError();
    float *y = out->mutableData<float>();
    std::vector<double> counts(position);
    std::vector<Token> gram;
    for (std::int64_t r = 0; r < rows; ++r) {
        std::fill(counts.begin(), counts.end(), 0.0);
        const Token *row = tokens.data() + r * columns;
        for (std::int64_t skip = 0; skip <= maxSkip; ++skip)
            for (std::int64_t start = 0; start < columns; ++start)
                for (std::int64_t n = std::max<std::int64_t>(minN, skip ? 2 : 1); n <= maxN; ++n) {
                    if (start + (n - 1) * (skip + 1) >= columns)
                        break;
                    gram.clear();
                    for (std::int64_t k = 0; k < n; ++k)
                        gram.push_back(row[start + k * (skip + 1)]);
                    if (auto it = ngramPosition.find(gram); it != ngramPosition.end())
                        counts[it->second] += 1.0;
                }
        for (std::size_t p = 0; p < position; ++p) {
            if (counts[p] == 0.0)
                continue;
            const double weight = weights.empty() ? 1.0 : weights[p];
            const double value = mode == "TF" ? counts[p] : mode == "IDF" ? weight : counts[p] * weight;
            y[r * width + indexes[p]] += static_cast<float>(value);
        }
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace

support::Status tfIdfVectorizer(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (x.rank() > 2)
        return ctx.error("the input must be [C] or [N, C], got " + shapeString(x.shape()));
    if (x.dataType() == TensorProto::STRING) {
        if (!ctx.hasAttribute("pool_strings"))
            return ctx.error("a string input needs pool_strings");
        return countNgrams<std::string>(ctx, x.strings(), ctx.attrStrings("pool_strings"));
    }
    if (x.dataType() != TensorProto::INT32 && x.dataType() != TensorProto::INT64)
        return ctx.error("the input must be string, int32 or int64, got " + ir::dataTypeName(x.dataType()));
    if (!ctx.hasAttribute("pool_int64s"))
        return ctx.error("an integer input needs pool_int64s");
    const Tensor ids = convertTensor(x, TensorProto::INT64);
    return countNgrams<std::int64_t>(ctx, std::vector<std::int64_t>(ids.data<std::int64_t>(), ids.data<std::int64_t>() + ids.size()),
                                     ctx.attrInts("pool_int64s"));
}

} // namespace portolan::runtime::kernels
