// Keeps the tensors of chosen values as a run produces them: what a kernel check or a repro re-reads.
#pragma once

#include "compare/RunComparison.h"
#include "runtime/reference/Interpreter.h"

#include <unordered_map>
#include <unordered_set>

namespace portolan::compare {

class CaptureObserver final : public runtime::RunObserver {
public:
    explicit CaptureObserver(const std::unordered_set<std::uint32_t> &wanted) : m_wanted(wanted) {}

    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k)
            if (node.outputs[k].valid() && m_wanted.contains(node.outputs[k].index))
                values[node.outputs[k].index] = outputs[k];
    }
    bool wantsOutput(const ir::Node &node, std::size_t k) const override
    {
        return k < node.outputs.size() && node.outputs[k].valid() && m_wanted.contains(node.outputs[k].index);
    }

    std::unordered_map<std::uint32_t, runtime::RuntimeValue> values; ///< by value id

private:
    const std::unordered_set<std::uint32_t> &m_wanted;
};

/// Runs `side` on `feeds` once and returns the tensors of the `wanted` values it produced.
inline support::Expected<std::unordered_map<std::uint32_t, runtime::RuntimeValue>>
captureValues(const RunSide &side, const runtime::NamedValues &feeds, const std::unordered_set<std::uint32_t> &wanted)
{
    CaptureObserver capture(wanted);
    runtime::RunOptions observed;
    observed.observer = &capture;
    if (auto run = side.run(feeds, observed); !run)
        return run.takeError();
    return std::move(capture.values);
}

} // namespace portolan::compare
