#include "analysis/GraphSearch.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

namespace portolan::analysis {

namespace {

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

} // namespace

std::vector<SearchHit> searchGraph(const ir::Model &model, ir::GraphId graph, const std::string &query, std::size_t limit)
{
    std::string needle = query;
    bool names = true, ops = true, tensors = true;
    if (needle.rfind("op:", 0) == 0) {
        needle = needle.substr(3);
        names = tensors = false;
    } else if (needle.rfind("tensor:", 0) == 0) {
        needle = needle.substr(7);
        names = ops = false;
    }
    std::vector<SearchHit> hits;
    if (needle.empty())
        return hits;
    const std::string lowNeedle = lowered(needle);
    std::unordered_set<std::uint32_t> seen;
    auto add = [&](ir::NodeId node, ir::ValueId value, const char *why) {
        if (hits.size() < limit && seen.insert(node.index).second)
            hits.push_back({node, value, why});
    };
    for (auto id : model.graph(graph).nodes) {
        const ir::Node &node = model.node(id);
        if (!node.alive)
            continue;
        if (ops && lowered(node.opType) == lowNeedle)
            add(id, {}, "op");
        else if (names && lowered(node.name).find(lowNeedle) != std::string::npos)
            add(id, {}, "name");
        else if (tensors)
            for (auto v : node.outputs)
                if (v.valid() && lowered(model.value(v).name).find(lowNeedle) != std::string::npos) {
                    add(id, v, "tensor");
                    break;
                }
    }
    if (tensors) // graph inputs and initializers have no producer: show their first consumer
        for (const auto *list : {&model.graph(graph).inputs, &model.graph(graph).initializers})
            for (auto v : *list) {
                const ir::Value &value = model.value(v);
                if (!value.uses.empty() && lowered(value.name).find(lowNeedle) != std::string::npos)
                    add(value.uses.front().node, v, "tensor");
            }
    return hits;
}

} // namespace portolan::analysis
