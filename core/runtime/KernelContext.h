// What a reference kernel sees: its node, attributes, inputs, the memory budget, and a way to run
// subgraphs. Errors made here name the node, its op and its inputs' shapes.
#pragma once

#include "ir/Model.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::runtime {

/// Bytes a run may hold in live values; every kernel allocation is checked against it first.
struct MemoryBudget {
    std::size_t cap = 0;
    std::size_t live = 0;
    std::size_t peak = 0;

    void charge(std::size_t bytes) { live += bytes; peak = std::max(peak, live); }
    void release(std::size_t bytes) { live -= std::min(live, bytes); }
};

/// Runs a subgraph of the current node (If branches, Loop and Scan bodies) with outer-scope values visible.
class SubgraphRunner {
public:
    virtual ~SubgraphRunner() = default;
    virtual support::Expected<std::vector<RuntimeValue>> runSubgraph(ir::GraphId graph,
                                                                     std::vector<RuntimeValue> inputs) = 0;
    virtual std::int64_t maxLoopIterations() const = 0;
};

/// Where no subgraph may run (building kernels, folding constants): every call fails with `why`.
class NoSubgraphs final : public SubgraphRunner {
public:
    explicit NoSubgraphs(std::string why) : m_why(std::move(why)) {}
    support::Expected<std::vector<RuntimeValue>> runSubgraph(ir::GraphId, std::vector<RuntimeValue>) override
    {
        return support::makeError("no-subgraphs", m_why);
    }
    std::int64_t maxLoopIterations() const override { return 0; }

private:
    std::string m_why;
};

class KernelContext {
public:
    KernelContext(const ir::Model &model, const ir::Node &node, int opset, std::vector<const RuntimeValue *> inputs,
                  MemoryBudget &budget, SubgraphRunner &subgraphs);

    const ir::Model &model() const { return m_model; }
    const ir::Node &node() const { return m_node; }
    int opset() const { return m_opset; }

    // --- inputs ---
    std::size_t inputCount() const { return m_inputs.size(); }
    /// Present (not omitted with "") and a tensor.
    bool hasInput(std::size_t i) const;
    /// Input i as a tensor; an undefined tensor when absent or not a tensor.
    const Tensor &input(std::size_t i) const;
    const RuntimeValue *inputValue(std::size_t i) const { return i < m_inputs.size() ? m_inputs[i] : nullptr; }
    /// Fails unless inputs [0, required) are present tensors.
    support::Status requireInputs(std::size_t required) const;

    // --- attributes (the schema's defaults are the caller's fallback) ---
    // Every lookup marks the attribute as read: after the kernel, an attribute it never read must
    // hold its schema default (checkAttributesHonoured), so none is silently ignored.
    bool hasAttribute(const char *name) const { return attribute(name) != nullptr; }
    /// The attribute itself (nullptr when the node has none of that name).
    const ir::Attribute *attribute(const char *name) const;
    std::int64_t attrInt(const char *name, std::int64_t fallback) const;
    float attrFloat(const char *name, float fallback) const;
    std::string attrString(const char *name, const std::string &fallback = {}) const;
    std::vector<std::int64_t> attrInts(const char *name) const;
    std::vector<float> attrFloats(const char *name) const;
    std::vector<std::string> attrStrings(const char *name) const;
    const onnx::TensorProto *attrTensor(const char *name) const;
    ir::GraphId attrGraph(const char *name) const;
    /// The node's attributes no lookup above asked for.
    std::vector<const ir::Attribute *> unreadAttributes() const;

    // --- outputs ---
    std::size_t outputCount() const { return m_node.outputs.size(); }
    /// True when output i is wanted (not omitted with "").
    bool wantsOutput(std::size_t i) const { return i < m_node.outputs.size() && m_node.outputs[i].valid(); }
    /// A zero-filled tensor for an output or scratch, after checking dims and the memory budget.
    support::Expected<Tensor> allocate(int dataType, const Shape &shape);
    /// The same checks, storage not zeroed: for an output or scratch the kernel writes in full.
    support::Expected<Tensor> allocateUninitialized(int dataType, const Shape &shape);
    /// The bytes of a tensor of `dataType` and `shape` when it would fit the memory budget now, else
    /// the error allocate() would give: for kernels that build per-output tables before the output.
    support::Expected<std::size_t> bytesWithinBudget(int dataType, const Shape &shape) const;
    void setOutput(std::size_t i, Tensor tensor);
    void setOutputValue(std::size_t i, RuntimeValue value);
    std::vector<RuntimeValue> &outputs() { return m_outputs; }

    // --- errors and control flow ---
    /// An error naming this node, its op and the shapes of its inputs.
    support::Error error(const std::string &message) const;
    SubgraphRunner &subgraphs() { return m_subgraphs; }

private:
    /// Checks dims and the memory cap for a new tensor and counts its bytes as this call's.
    support::Status reserve(int dataType, const Shape &shape);

    const ir::Model &m_model;
    const ir::Node &m_node;
    int m_opset;
    std::vector<const RuntimeValue *> m_inputs;
    std::vector<RuntimeValue> m_outputs;
    MemoryBudget &m_budget;
    std::size_t m_allocatedHere = 0; // bytes allocate() handed out during this kernel call
    mutable std::vector<bool> m_attributeRead; // by index in m_node.attributes
    SubgraphRunner &m_subgraphs;
};

using KernelFunction = support::Status (*)(KernelContext &);

} // namespace portolan::runtime
