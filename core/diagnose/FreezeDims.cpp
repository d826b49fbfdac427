// Sizing open input dims from the given ones, by name and by sums of names (FreezeDims.h).
#include "diagnose/FreezeDims.h"

#include <cctype>
#include <optional>

namespace portolan::diagnose {

namespace {

std::string trimmed(const std::string &text)
{
    std::size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
        --e;
    return text.substr(b, e - b);
}

/// A symbol's size: a known name, or a sum of known names and whole numbers ("past + 1").
std::optional<std::int64_t> sizeOf(const std::string &symbol, const std::map<std::string, std::int64_t> &sizes)
{
    if (const auto it = sizes.find(symbol); it != sizes.end())
        return it->second;
    if (symbol.find('+') == std::string::npos)
        return std::nullopt;
    std::int64_t total = 0;
    for (std::size_t start = 0; start <= symbol.size();) {
        const std::size_t end = std::min(symbol.find('+', start), symbol.size());
        const std::string term = trimmed(symbol.substr(start, end - start));
        if (const auto it = sizes.find(term); it != sizes.end())
            total += it->second;
        else if (!term.empty() && term.find_first_not_of("0123456789") == std::string::npos && term.size() < 12)
            total += std::stoll(term);
        else
            return std::nullopt;
        start = end + 1;
    }
    return total;
}

} // namespace

FrozenInputs freezeOpenInputs(const ir::Model &model, const std::map<std::string, std::vector<std::int64_t>> &given)
{
    const auto &inputs = model.graph(model.mainGraph()).inputs;
    std::map<std::string, std::int64_t> sizes; // symbolic dim → the size a given input has there
    for (const ir::ValueId v : inputs) {
        const ir::Value &value = model.value(v);
        const auto it = given.find(value.name);
        const ir::Shape shape = value.shape();
        if (it == given.end() || !shape.rankKnown() || shape.dims->size() != it->second.size())
            continue;
        for (std::size_t axis = 0; axis < it->second.size(); ++axis)
            if ((*shape.dims)[axis].isSymbolic())
                sizes.emplace((*shape.dims)[axis].symbol(), it->second[axis]);
    }
    FrozenInputs frozen;
    for (const ir::ValueId v : inputs) {
        const ir::Value &value = model.value(v);
        if (value.isInitializer())
            continue;
        const ir::Shape shape = value.shape();
        const auto it = given.find(value.name);
        if (it == given.end() && (!shape.rankKnown() || shape.isStatic()))
            continue;
        std::vector<std::int64_t> dims;
        if (it != given.end())
            dims = it->second;
        else
            for (std::size_t axis = 0; axis < shape.dims->size(); ++axis) {
                const ir::Dim &d = (*shape.dims)[axis];
                std::optional<std::int64_t> size = d.isStatic() ? std::optional<std::int64_t>(d.extent())
                                                   : d.isSymbolic() ? sizeOf(d.symbol(), sizes)
                                                                    : std::nullopt;
                if (!size)
                    frozen.unsized.push_back(value.name + " axis " + std::to_string(axis) +
                                             (d.isSymbolic() ? " (" + d.symbol() + ")" : std::string()));
                dims.push_back(size.value_or(1));
            }
        std::string text;
        for (const std::int64_t d : dims)
            text += (text.empty() ? "" : "x") + std::to_string(d);
        frozen.text += (frozen.text.empty() ? "" : ",") + value.name + ":" + (text.empty() ? "1" : text);
    }
    return frozen;
}

std::string unsizedNote(const FrozenInputs &frozen)
{
    if (frozen.unsized.empty())
        return {};
    std::string note = "1 stands for ";
    for (std::size_t i = 0; i < frozen.unsized.size(); ++i)
        note += (i == 0 ? "" : i + 1 == frozen.unsized.size() ? " and " : ", ") + frozen.unsized[i];
    return note;
}

} // namespace portolan::diagnose
