// The executor front: feeds checked as the reference interpreter checks them, shape plans keyed
// by the feeds' shapes, initializers converted once for all plans.
#include "runtime/cpu/CpuExecutor.h"

#include "runtime/reference/ModelConstants.h"
#include "runtime/ShapeKey.h"
#include "analysis/ModelValidation.h"
#include "opset/OpVersions.h"
#include "runtime/cpu/CpuKernel.h"
#include "runtime/reference/KernelRegistry.h"

#include <chrono>
#include <set>

namespace portolan::runtime::cpu {

CpuExecutor::CpuExecutor(const ir::Model &model, CompileOptions options)
    : m_model(model), m_options(options), m_reference(model)
{
    ModelConstants constants = collectConstants(model, m_reference);
    m_constants = std::move(constants.tensors);
    m_weightBytes = constants.weightBytes + constants.foldedBytes; // the folded copies are held too
}

CpuExecutor::~CpuExecutor() = default;

support::Status CpuExecutor::checkSupported() const
{
    if (auto gate = analysis::executionGate(m_model); !gate)
        return gate;
    std::set<std::string> missing;
    for (std::size_t i = 0; i < m_model.nodeCapacity(); ++i) {
        const ir::Node &node = m_model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
        if (!node.alive || (node.graph == m_model.mainGraph() && outputsKnown(node, m_constants)))
            continue; // folded when the executor was made: it never runs
        const int opset = m_model.opsetVersion(node.domain).value_or(1);
        const bool native = node.graph == m_model.mainGraph() && findCpuKernel(node.domain, node.opType, opset);
        const bool reference = findReferenceKernel(node.domain, node.opType, opset) != nullptr;
        if (!native && (!reference || !m_options.allowFallback))
            missing.insert(opset::describeOpVersion(node.domain, node.opType, opset));
    }
    if (missing.empty())
        return support::Status::ok();
    std::string list;
    for (const auto &m : missing)
        list += (list.empty() ? "" : ", ") + m;
    const std::string hint = m_options.allowFallback ? "" : " (run with fallback to use the reference kernels for them)";
    return support::makeError("no-kernel", "the CPU executor has no kernel for " + std::to_string(missing.size()) +
                                               " op(s): " + list + hint, m_model.sourcePath);
}

support::Expected<NamedValues> CpuExecutor::run(const NamedValues &feeds, const RunOptions &options)
{
    if (auto st = checkSupported(); !st)
        return st.error();
    auto bound = bindFeeds(m_model, feeds, options.checkInputShapes);
    if (!bound)
        return bound.takeError();
    const ShapeKey key = shapeKeyOf(m_model, *bound);
    auto it = m_plans.find(key.signature);
    if (it == m_plans.end()) {
        const auto start = std::chrono::steady_clock::now();
        auto compiled = CompiledGraph::compile(m_model, key.shapes, m_constants, m_options);
        if (!compiled)
            return compiled.takeError();
        m_stats.compileSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++m_stats.shapePlansCompiled;
        it = m_plans.emplace(key.signature, std::move(*compiled)).first;
    } else {
        ++m_stats.cacheHits;
    }
    m_last = it->second.get();
    return it->second->run(*bound, options, m_reference, m_profiling);
}

std::optional<PlanFigures> CpuExecutor::lastFigures() const
{
    if (!m_last)
        return std::nullopt;
    PlanFigures figures;
    figures.arenaBytes = m_last->memoryPlan().arenaBytes;
    figures.weightBytes = m_weightBytes;
    figures.flops = static_cast<std::uint64_t>(m_last->flops());
    for (const NodeProfile &n : m_last->nodes())
        if (n.implementation == "reference")
            ++figures.fallbacks[n.opType];
    return figures;
}

} // namespace portolan::runtime::cpu
