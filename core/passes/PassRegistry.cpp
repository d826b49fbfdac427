// The registry built from Passes.def, and option parsing.
#include "passes/Pass.h"

#include <charconv>
#include <cstdlib>

namespace portolan::passes {

const std::vector<PassInfo> &registeredPasses()
{
    static const std::vector<PassInfo> passes = [] {
        std::vector<PassInfo> list;
#define PORTOLAN_PASS(cls, name, summary, ...) \
    list.push_back(PassInfo{name, summary, std::vector<PassOption>{__VA_ARGS__}, [] { return std::unique_ptr<Pass>(new cls); }});
#include "passes/Passes.def"
#undef PORTOLAN_PASS
        return list;
    }();
    return passes;
}

const PassInfo *findPass(const std::string &name)
{
    for (const PassInfo &p : registeredPasses())
        if (p.name == name)
            return &p;
    return nullptr;
}

const std::string &PassOptions::text(const std::string &name) const
{
    static const std::string none;
    const auto it = m_values.find(name);
    return it == m_values.end() ? none : it->second;
}

support::Expected<double> PassOptions::number(const std::string &name) const
{
    const std::string &t = text(name);
    char *end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size())
        return support::makeError("bad-pass-option", "option '" + name + "' must be a number, not '" + t + "'");
    return v;
}

support::Expected<std::int64_t> PassOptions::integer(const std::string &name) const
{
    const std::string &t = text(name);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
        return support::makeError("bad-pass-option", "option '" + name + "' must be an integer, not '" + t + "'");
    return v;
}

} // namespace portolan::passes
