// The built-in layered layout (Sugiyama-style, simplified): ranks by longest path from the sources,
// order within a rank by the mean position of each node's predecessors (two down sweeps, one up),
// then x by packing boxes left to right and centring each rank.
#include "layout/LayoutEngine.h"

#include <algorithm>
#include <numeric>
#include <queue>

namespace portolan::layout {

namespace {

class LayeredLayout final : public LayoutEngine {
public:
    std::string name() const override { return "layered"; }

    support::Expected<LayoutResult> layout(const LayoutInput &input) override
    {
        const std::size_t n = input.nodes.size();
        std::vector<std::vector<std::uint32_t>> preds(n), succs(n);
        for (const auto &e : input.edges) {
            if (e.from >= n || e.to >= n)
                return support::makeError("layout-bad-edge", "an edge names a node that does not exist");
            if (e.from == e.to)
                continue;
            succs[e.from].push_back(e.to);
            preds[e.to].push_back(e.from);
        }

        // ranks: longest path in Kahn order; nodes left on a cycle keep the rank reached so far
        std::vector<std::uint32_t> rank(n, 0), pending(n);
        std::queue<std::uint32_t> ready;
        for (std::uint32_t i = 0; i < n; ++i)
            if ((pending[i] = static_cast<std::uint32_t>(preds[i].size())) == 0)
                ready.push(i);
        while (!ready.empty()) {
            const std::uint32_t v = ready.front();
            ready.pop();
            for (const std::uint32_t s : succs[v]) {
                rank[s] = std::max(rank[s], rank[v] + 1);
                if (--pending[s] == 0)
                    ready.push(s);
            }
        }
        const std::uint32_t rankCount = n ? *std::max_element(rank.begin(), rank.end()) + 1 : 0;
        std::vector<std::vector<std::uint32_t>> ranks(rankCount);
        for (std::uint32_t i = 0; i < n; ++i)
            ranks[rank[i]].push_back(i);

        std::vector<double> order(n, 0); // position within its rank
        auto renumber = [&](std::vector<std::uint32_t> &r) {
            for (std::size_t k = 0; k < r.size(); ++k)
                order[r[k]] = static_cast<double>(k);
        };
        for (auto &r : ranks)
            renumber(r);
        auto sweep = [&](bool down) {
            for (std::size_t step = 1; step < ranks.size(); ++step) {
                auto &r = ranks[down ? step : ranks.size() - 1 - step];
                std::vector<double> key(r.size());
                for (std::size_t k = 0; k < r.size(); ++k) {
                    const auto &nbrs = down ? preds[r[k]] : succs[r[k]];
                    double sum = 0;
                    for (const auto p : nbrs)
                        sum += order[p];
                    key[k] = nbrs.empty() ? order[r[k]] : sum / static_cast<double>(nbrs.size());
                }
                std::vector<std::size_t> idx(r.size());
                std::iota(idx.begin(), idx.end(), 0);
                std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return key[a] < key[b]; });
                std::vector<std::uint32_t> sorted(r.size());
                for (std::size_t k = 0; k < idx.size(); ++k)
                    sorted[k] = r[idx[k]];
                r = std::move(sorted);
                renumber(r);
            }
        };
        sweep(true);
        sweep(false);
        sweep(true);

        LayoutResult result;
        result.engine = name();
        result.centers.resize(n);
        std::vector<double> rankWidth(rankCount, 0), rankHeight(rankCount, 0);
        for (std::uint32_t r = 0; r < rankCount; ++r) {
            for (const auto v : ranks[r]) {
                rankWidth[r] += input.nodes[v].width + input.nodeSpacing;
                rankHeight[r] = std::max(rankHeight[r], input.nodes[v].height);
            }
            rankWidth[r] = std::max(0.0, rankWidth[r] - input.nodeSpacing);
        }
        result.width = rankCount ? *std::max_element(rankWidth.begin(), rankWidth.end()) : 0;
        double y = 0;
        for (std::uint32_t r = 0; r < rankCount; ++r) {
            double x = (result.width - rankWidth[r]) / 2;
            for (const auto v : ranks[r]) {
                result.centers[v] = {x + input.nodes[v].width / 2, y + rankHeight[r] / 2};
                x += input.nodes[v].width + input.nodeSpacing;
            }
            y += rankHeight[r] + input.rankSpacing;
        }
        result.height = rankCount ? y - input.rankSpacing : 0;

        for (const auto &e : input.edges) {
            const Point a = result.centers[e.from];
            const Point b = result.centers[e.to];
            result.edgePaths.push_back({{a.x, a.y + input.nodes[e.from].height / 2},
                                        {b.x, b.y - input.nodes[e.to].height / 2}});
        }
        return result;
    }
};

} // namespace

std::unique_ptr<LayoutEngine> makeLayeredLayout() { return std::make_unique<LayeredLayout>(); }

} // namespace portolan::layout
