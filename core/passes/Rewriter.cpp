// Rewriter: edits keep uses, producers and scopes consistent, and land in the open rewrite record.
#include "passes/Rewriter.h"

#include "ir/Topology.h"
#include "passes/Match.h"
#include "runtime/TensorProtoIO.h"

#include <algorithm>
#include <cassert>

namespace portolan::passes {

std::vector<ir::NodeId> Provenance::originsOf(ir::NodeId node) const
{
    if (auto it = m_origins.find(node); it != m_origins.end())
        return it->second;
    if (isOriginal(node))
        return {node};
    return {};
}

void Provenance::derive(ir::NodeId created, const std::vector<ir::NodeId> &sources)
{
    std::vector<ir::NodeId> merged = originsOf(created);
    for (const ir::NodeId s : sources) {
        const std::vector<ir::NodeId> o = originsOf(s);
        merged.insert(merged.end(), o.begin(), o.end());
    }
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    m_origins[created] = std::move(merged);
}

ir::ValueId Provenance::originalValueOf(ir::ValueId value) const
{
    if (value.index < m_originalValueCount)
        return value;
    const auto it = m_valueOrigins.find(value);
    return it == m_valueOrigins.end() ? ir::ValueId() : it->second;
}

void Provenance::equate(ir::ValueId replacement, ir::ValueId replaced)
{
    const ir::ValueId origin = originalValueOf(replaced);
    if (origin.valid() && replacement.index >= m_originalValueCount)
        m_valueOrigins[replacement] = origin;
}

Rewriter::Rewriter(ir::Model &model, Provenance &provenance, std::string passName)
    : m_model(model), m_provenance(provenance), m_pass(std::move(passName))
{
}

bool Rewriter::begin(std::string pattern)
{
    assert(!m_open && "a rewrite is already open");
    if (m_begun >= m_budget)
        return false;
    ++m_begun;
    m_open = true;
    m_current = RewriteRecord{};
    m_current.pass = m_pass;
    m_current.pattern = std::move(pattern);
    m_editCountAtBegin = m_editCount;
    return true;
}

void Rewriter::commit(std::string detail)
{
    assert(m_open);
    for (const auto &[node, hint] : m_suffixedNames)
        reclaimName(node, hint);
    m_suffixedNames.clear();
    m_open = false;
    for (const ir::NodeId created : m_pendingDerivations)
        m_provenance.derive(created, m_current.removedNodes);
    m_pendingDerivations.clear();
    if (m_editCount == m_editCountAtBegin)
        return;
    m_current.detail = std::move(detail);
    m_records.push_back(std::move(m_current));
    count("rewrites." + m_records.back().pattern);
}

void Rewriter::notifyMatchFailure(ir::NodeId node, std::string pattern, std::string reason)
{
    m_failures.push_back({m_pass, std::move(pattern), node, std::move(reason)});
}

void Rewriter::count(const std::string &name, std::int64_t amount)
{
    m_statistics[name] += amount;
}

void Rewriter::edited()
{
    assert(m_open && "edit outside begin()/commit()");
    ++m_editCount;
}

std::string Rewriter::uniqueValueName(ir::GraphId graph, const std::string &hint) const
{
    const std::string base = hint.empty() ? std::string("v") : hint;
    auto taken = [&](const std::string &name) { return m_model.lookup(graph, name).has_value(); };
    if (!taken(base))
        return base;
    for (std::size_t k = 1;; ++k) {
        std::string candidate = base + "_" + std::to_string(k);
        if (!taken(candidate))
            return candidate;
    }
}

void Rewriter::countNodeNames()
{
    if (m_nodeNamesCounted)
        return;
    for (std::size_t i = 0; i < m_model.nodeCapacity(); ++i) {
        const ir::Node &node = m_model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
        m_takenNodeNames.insert(node.name);
        if (node.alive)
            ++m_liveNodeNames[node.name];
    }
    m_nodeNamesCounted = true;
}

std::string Rewriter::uniqueNodeName(const std::string &hint)
{
    countNodeNames();
    std::string name = hint;
    for (std::size_t k = 1; m_takenNodeNames.contains(name); ++k)
        name = hint + "_" + std::to_string(k);
    m_takenNodeNames.insert(name);
    ++m_liveNodeNames[name];
    return name;
}

void Rewriter::reclaimName(ir::NodeId nodeId, const std::string &wanted)
{
    countNodeNames();
    ir::Node &node = m_model.node(nodeId);
    const bool heldByReplaced = std::any_of(m_current.removedNodes.begin(), m_current.removedNodes.end(),
                                            [&](ir::NodeId removed) { return m_model.node(removed).name == wanted; });
    if (!node.alive || node.name == wanted || !heldByReplaced || m_liveNodeNames.contains(wanted))
        return;
    if (const auto it = m_liveNodeNames.find(node.name); it != m_liveNodeNames.end() && --it->second == 0)
        m_liveNodeNames.erase(it);
    node.name = wanted;
    ++m_liveNodeNames[wanted];
}

ir::ValueId Rewriter::createValue(ir::GraphId graph, const std::string &nameHint, const onnx::TypeProto *type)
{
    edited();
    const ir::ValueId id = m_model.addValue(graph, uniqueValueName(graph, nameHint));
    if (type != nullptr) {
        ir::Value &v = m_model.value(id);
        *v.info.mutable_type() = *type;
        v.hasDeclaredType = true;
        m_model.graph(graph).valueInfos.push_back(id);
    }
    m_current.createdValues.push_back(id);
    return id;
}

ir::ValueId Rewriter::createInitializer(ir::GraphId graph, const std::string &nameHint, const runtime::Tensor &tensor)
{
    edited();
    const ir::ValueId id = m_model.addValue(graph, uniqueValueName(graph, nameHint));
    ir::Value &v = m_model.value(id);
    auto init = std::make_shared<ir::Initializer>();
    init->proto = runtime::tensorToProto(tensor, v.name);
    auto *tensorType = v.info.mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(tensor.dataType());
    auto *shape = tensorType->mutable_shape();
    for (const std::int64_t d : tensor.shape())
        shape->add_dim()->set_dim_value(d);
    v.initializer = std::move(init);
    m_model.graph(graph).initializers.push_back(id);
    m_current.createdValues.push_back(id);
    return id;
}

ir::NodeId Rewriter::createNode(ir::GraphId graph, const std::string &opType, const std::string &domain,
                                const std::vector<ir::ValueId> &inputs, const std::vector<ir::ValueId> &outputs,
                                std::vector<onnx::AttributeProto> attributes, const std::string &nameHint,
                                ir::NodeId before, std::vector<ir::NodeId> standsFor)
{
    edited();
    const std::string hint = nameHint.empty() ? opType : nameHint;
    const ir::NodeId id = m_model.addNode(graph, uniqueNodeName(hint), opType, domain);
    if (m_model.node(id).name != hint)
        m_suffixedNames.emplace_back(id, hint);
    for (const ir::ValueId in : inputs)
        m_model.appendInput(id, in);
    for (const ir::ValueId out : outputs) {
        assert(!out.valid() || !m_model.value(out).producer.valid());
        m_model.appendOutput(id, out);
        m_removedValues.erase(out); // an erased node's output may be produced anew
    }
    ir::Node &node = m_model.node(id);
    for (auto &a : attributes) {
        ir::Attribute attribute;
        attribute.proto = std::move(a);
        node.attributes.push_back(std::move(attribute));
    }
    if (before.valid())
        m_placements[before].push_back(id); // placed in finish(): inserting now would cost O(nodes) each
    if (standsFor.empty())
        m_pendingDerivations.push_back(id);
    else
        m_provenance.derive(id, standsFor);
    m_current.createdNodes.push_back(id);
    m_touchedGraphs.insert(graph.index);
    return id;
}

bool Rewriter::canReplace(ir::ValueId from, ir::ValueId to, std::string *why) const
{
    auto fail = [&](std::string reason) {
        if (why != nullptr)
            *why = std::move(reason);
        return false;
    };
    if (from == to)
        return fail("a value cannot replace itself");
    if (!isGraphOutput(m_model, from))
        return true;
    const ir::Value &target = m_model.value(to);
    if (target.graph != m_model.value(from).graph)
        return fail("graph output '" + m_model.value(from).name + "' would be fed from another scope");
    if (!target.producer.valid())
        return fail("graph output '" + m_model.value(from).name + "' would become a graph input or initializer");
    if (isGraphOutput(m_model, to))
        return fail("graph outputs '" + m_model.value(from).name + "' and '" + target.name + "' would merge");
    return true;
}

void Rewriter::replaceAllUsesWith(ir::ValueId from, ir::ValueId to)
{
    assert(canReplace(from, to));
    edited();
    m_provenance.equate(to, from);
    ir::Value &source = m_model.value(from);
    for (const ir::Use &use : source.uses) {
        m_model.node(use.node).inputs[use.inputIndex] = to;
        m_model.value(to).uses.push_back(use);
    }
    source.uses.clear();
    if (!isGraphOutput(m_model, from))
        return;
    // The graph output keeps its name and declaration: swap names so `to` carries them.
    ir::Graph &graph = m_model.graph(source.graph);
    ir::Value &target = m_model.value(to);
    std::swap(source.name, target.name);
    graph.scope[source.name] = from;
    graph.scope[target.name] = to;
    onnx::TypeProto inferred = target.info.type();
    target.info = source.info;
    if (!target.info.has_type() && inferred.value_case() != onnx::TypeProto::VALUE_NOT_SET)
        *target.info.mutable_type() = inferred;
    target.info.set_name(target.name);
    target.hasDeclaredType = target.hasDeclaredType || source.hasDeclaredType;
    source.info.set_name(source.name);
    std::replace(graph.outputs.begin(), graph.outputs.end(), from, to);
    // A value_info entry for the output would now duplicate the output declaration.
    std::erase(graph.valueInfos, to);
    m_touchedGraphs.insert(graph.id.index);
}

void Rewriter::dropUse(ir::ValueId value, ir::NodeId node, std::uint32_t inputIndex)
{
    if (!value.valid())
        return;
    auto &uses = m_model.value(value).uses;
    const auto it = std::find(uses.begin(), uses.end(), ir::Use{node, inputIndex});
    if (it != uses.end())
        uses.erase(it);
}

void Rewriter::setInput(ir::NodeId nodeId, std::size_t index, ir::ValueId value)
{
    edited();
    ir::Node &node = m_model.node(nodeId);
    const auto slot = static_cast<std::uint32_t>(index);
    if (index >= node.inputs.size())
        node.inputs.resize(index + 1);
    dropUse(node.inputs[index], nodeId, slot);
    node.inputs[index] = value;
    if (value.valid())
        m_model.value(value).uses.push_back({nodeId, slot});
    // Trailing omitted inputs are dropped, as ONNX writes them.
    while (!node.inputs.empty() && !node.inputs.back().valid())
        node.inputs.pop_back();
    m_touchedGraphs.insert(node.graph.index);
}

void Rewriter::setAttribute(ir::NodeId nodeId, onnx::AttributeProto attribute)
{
    edited();
    ir::Node &node = m_model.node(nodeId);
    for (ir::Attribute &a : node.attributes)
        if (a.name() == attribute.name()) {
            a.proto = std::move(attribute);
            a.subgraphs.clear();
            a.externalTensor.reset();
            return;
        }
    ir::Attribute added;
    added.proto = std::move(attribute);
    node.attributes.push_back(std::move(added));
}

void Rewriter::removeAttribute(ir::NodeId nodeId, const std::string &name)
{
    ir::Node &node = m_model.node(nodeId);
    const auto removed = std::erase_if(node.attributes, [&](const ir::Attribute &a) { return a.name() == name; });
    if (removed > 0)
        edited();
}

void Rewriter::absorb(ir::NodeId node, const std::vector<ir::NodeId> &absorbed)
{
    edited();
    m_provenance.derive(node, absorbed);
}

void Rewriter::setValueType(ir::ValueId valueId, const onnx::TypeProto &type)
{
    ir::Value &value = m_model.value(valueId);
    if (value.info.has_type() &&
        value.info.type().SerializeAsString() == type.SerializeAsString())
        return;
    edited();
    *value.info.mutable_type() = type;
    if (value.hasDeclaredType || value.isInitializer())
        return;
    value.hasDeclaredType = true;
    ir::Graph &graph = m_model.graph(value.graph);
    const bool declared = std::find(graph.inputs.begin(), graph.inputs.end(), valueId) != graph.inputs.end() ||
                          std::find(graph.outputs.begin(), graph.outputs.end(), valueId) != graph.outputs.end();
    if (!declared)
        graph.valueInfos.push_back(valueId);
}

void Rewriter::eraseNodeRecursive(ir::NodeId nodeId)
{
    ir::Node &node = m_model.node(nodeId);
    node.alive = false;
    if (m_nodeNamesCounted)
        if (const auto it = m_liveNodeNames.find(node.name); it != m_liveNodeNames.end() && --it->second == 0)
            m_liveNodeNames.erase(it);
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
        dropUse(node.inputs[i], nodeId, static_cast<std::uint32_t>(i));
    for (const ir::ValueId out : node.outputs) {
        if (!out.valid())
            continue;
        ir::Value &v = m_model.value(out);
        v.producer = {};
        m_removedValues.insert(out); // dropped from the declaration lists in finish()
        m_touchedGraphs.insert(v.graph.index);
        m_current.removedValues.push_back(out);
    }
    for (const ir::Attribute &a : node.attributes)
        for (const ir::GraphId sub : a.subgraphs)
            for (const ir::NodeId inner : m_model.graph(sub).nodes)
                if (m_model.node(inner).alive)
                    eraseNodeRecursive(inner);
}

void Rewriter::eraseNode(ir::NodeId nodeId)
{
    edited();
    const ir::Node &node = m_model.node(nodeId);
    assert(node.alive);
    for ([[maybe_unused]] const ir::ValueId out : node.outputs)
        assert(!out.valid() || (m_model.value(out).uses.empty() && !isGraphOutput(m_model, out)));
    m_touchedGraphs.insert(node.graph.index);
    eraseNodeRecursive(nodeId);
    m_current.removedNodes.push_back(nodeId);
}

void Rewriter::eraseInitializer(ir::ValueId valueId)
{
    edited();
    ir::Value &value = m_model.value(valueId);
    assert(value.uses.empty());
    m_removedValues.insert(valueId);
    m_touchedGraphs.insert(value.graph.index);
    value.initializer.reset();
    m_current.removedValues.push_back(valueId);
}

void Rewriter::finish()
{
    assert(!m_open);
    std::unordered_set<ir::NodeId> placed;
    for (const auto &[before, created] : m_placements)
        placed.insert(created.begin(), created.end());
    for (const std::uint32_t g : m_touchedGraphs) {
        ir::Graph &graph = m_model.graph(ir::GraphId(g));
        if (!m_placements.empty()) {
            std::vector<ir::NodeId> order;
            order.reserve(graph.nodes.size());
            auto emit = [&](auto &&self, ir::NodeId n) -> void {
                if (auto it = m_placements.find(n); it != m_placements.end())
                    for (const ir::NodeId c : it->second)
                        self(self, c);
                order.push_back(n);
            };
            for (const ir::NodeId n : graph.nodes)
                if (!placed.contains(n))
                    emit(emit, n);
            graph.nodes = std::move(order);
        }
        std::erase_if(graph.nodes, [&](ir::NodeId n) { return !m_model.node(n).alive; });
        if (!m_removedValues.empty()) {
            auto removed = [&](ir::ValueId v) { return m_removedValues.contains(v); };
            std::erase_if(graph.initializers, removed);
            std::erase_if(graph.inputs, removed);
            std::erase_if(graph.valueInfos, removed);
        }
        // A cycle cannot arise from our edits; if it did, verification names it.
        if (auto order = ir::topologicalOrder(m_model, graph.id))
            graph.nodes = std::move(*order);
    }
    m_touchedGraphs.clear();
    m_placements.clear();
    m_removedValues.clear();
}

} // namespace portolan::passes
