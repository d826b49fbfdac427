// Running a shape plan: feeds into their slots, each step's kernel (or the reference one) in
// order with its inputs lowered as the precision policy says, values released after their last
// reader, the observer shown what it asks for, and per-node times when profiling.
#include "runtime/cpu/CompiledGraphParts.h"

#include "ir/Type.h"
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/Interpreter.h"

#include <chrono>

namespace portolan::runtime::cpu {

using support::makeError;

namespace {

void applyCast(Tensor &tensor, Precision to, float scale)
{
    if (to == Precision::Int8)
        fakeQuantize(tensor, scale);
    else
        roundFloats(tensor, to);
}

} // namespace

std::int64_t CompiledGraph::flops() const
{
    std::int64_t total = 0;
    for (const NodeProfile &n : m_profiles)
        total += n.flops;
    return total;
}

Tensor CompiledGraph::wholeBuffer(const Slot &slot) const
{
    if (!slot.nativeLayout)
        return slot.current.tensor;
    const auto elements = static_cast<std::int64_t>(slot.nativeLayout->get_size() / ir::dataTypeSize(slot.dataType));
    return Tensor::wrap(slot.dataType, {elements}, const_cast<std::byte *>(slot.current.tensor.rawData()), m_arena);
}

Tensor CompiledGraph::rowMajorCopy(const Slot &slot) const
{
    Tensor plain = Tensor::uninitialized(slot.dataType, *slot.shape); // the reorder writes every element
    dnnl::memory from = onednn::wrap(*slot.nativeLayout, slot.current.tensor);
    dnnl::memory to = onednn::wrap(onednn::plainDesc(*slot.shape, *onednn::dataTypeOf(slot.dataType)), plain);
    dnnl::reorder(from, to).execute(onednn::stream(), from, to);
    onednn::stream().wait();
    return plain;
}

support::Expected<NamedValues> CompiledGraph::run(const std::vector<const RuntimeValue *> &feeds, const RunOptions &options,
                                                  Interpreter &reference, bool profile)
{
    const std::size_t cap = options.maxMemoryBytes ? options.maxMemoryBytes : defaultMaxMemory();
    if (m_plan.arenaBytes > cap)
        return makeError("memory-limit", "the memory plan needs " + std::to_string(m_plan.arenaBytes >> 20) +
                                             " MiB of activations, over the limit of " + std::to_string(cap >> 20) + " MiB",
                         m_model.sourcePath);
    for (std::size_t i = 0; i < m_inputSlots.size(); ++i) {
        Slot &slot = m_slots[static_cast<std::size_t>(m_inputSlots[i])];
        if (slot.kind == Slot::Kind::Input && feeds[i])
            slot.current = *feeds[i];
    }
    std::size_t fallbackLive = 0;
    std::vector<const Tensor *> inputs;
    std::vector<Tensor> outputs;
    std::vector<RuntimeValue> readOnlyInputs;
    std::vector<const RuntimeValue *> inputPointers;
    std::vector<Tensor> castInputs;
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        if (options.cancel && options.cancel->load())
            return makeError("cancelled", "the run was cancelled", m_model.sourcePath);
        Step &step = m_steps[i];
        const ir::Node &node = m_model.node(step.node);
        NodeProfile &nodeProfile = m_profiles[i];
        const auto start = profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        if (step.precomputed) {
            // its value is in its slot from compile time on
        } else if (step.kernel) {
            inputs.clear();
            for (const int s : step.inputs)
                inputs.push_back(s >= 0 ? &m_slots[static_cast<std::size_t>(s)].current.tensor : nullptr);
            castInputs.clear();
            castInputs.reserve(step.casts.size()); // no reallocation: inputs point into it
            for (const Step::InputCast &cast : step.casts) {
                castInputs.push_back(wholeBuffer(m_slots[static_cast<std::size_t>(step.inputs[cast.input])]).clone());
                applyCast(castInputs.back(), cast.to, cast.scale);
                inputs[cast.input] = &castInputs.back();
            }
            outputs.clear();
            for (std::size_t k = 0; k < step.outputs.size(); ++k) {
                const int s = step.outputs[k];
                if (s < 0) {
                    outputs.emplace_back();
                    continue;
                }
                Slot &slot = m_slots[static_cast<std::size_t>(s)];
                if (slot.kind == Slot::Kind::Alias)
                    slot.current = RuntimeValue::ofTensor(m_slots[static_cast<std::size_t>(slot.aliasOf)].current.tensor.reshaped(*slot.shape));
                outputs.push_back(slot.current.tensor);
            }
            try {
                step.kernel->run(inputs, outputs);
            } catch (const dnnl::error &e) {
                return makeError("kernel-failed", step.kernel->implementation() + " failed: " + e.what(), m_model.sourcePath,
                                 nodeProfile.name);
            }
        } else {
            readOnlyInputs.clear();
            readOnlyInputs.reserve(step.inputs.size());
            inputPointers.clear();
            for (const int s : step.inputs) {
                if (s < 0) {
                    inputPointers.push_back(nullptr);
                    continue;
                }
                RuntimeValue v = m_slots[static_cast<std::size_t>(s)].current;
                v.tensor = v.tensor.readOnly();
                const std::size_t k = inputPointers.size();
                for (const Step::InputCast &cast : step.casts)
                    if (cast.input == k) {
                        v.tensor = v.tensor.clone();
                        applyCast(v.tensor, cast.to, cast.scale);
                    }
                readOnlyInputs.push_back(std::move(v));
                inputPointers.push_back(&readOnlyInputs.back());
            }
            std::unordered_map<std::uint32_t, RuntimeValue> captured;
            for (const auto &[value, s] : step.captured)
                captured[value.index] = m_slots[static_cast<std::size_t>(s)].current;
            auto produced = reference.runNode(node, inputPointers, captured, options);
            if (!produced)
                return produced.takeError();
            for (std::size_t k = 0; k < step.outputs.size(); ++k) {
                const int s = step.outputs[k];
                if (s < 0)
                    continue;
                Slot &slot = m_slots[static_cast<std::size_t>(s)];
                RuntimeValue &value = (*produced)[k];
                if (slot.shape && (!value.isTensor() || value.tensor.shape() != *slot.shape))
                    return makeError("shape-mismatch", "output '" + m_model.value(slot.value).name + "' is " + value.describe() +
                                                           ", but shape inference planned " + shapeString(*slot.shape),
                                     m_model.sourcePath, nodeProfile.name);
                // a reference kernel may answer with a view of its input (Reshape): one into the arena
                // would change under the later kernels the plan gives those bytes to, so it is copied out
                const std::byte *data = value.isTensor() ? value.tensor.rawData() : nullptr;
                if (data && m_arena && data >= m_arena.get() && data < m_arena.get() + m_plan.arenaBytes)
                    value.tensor = value.tensor.clone();
                fallbackLive += value.ownedBytes();
                slot.current = std::move(value);
            }
            m_fallbackPeak = std::max(m_fallbackPeak, fallbackLive);
        }
        if (step.roundOutputs)
            for (const int s : step.outputs)
                if (s >= 0 && m_slots[static_cast<std::size_t>(s)].current.isTensor()) {
                    Slot &slot = m_slots[static_cast<std::size_t>(s)];
                    if (slot.nativeLayout) {
                        Tensor bytes = wholeBuffer(slot);
                        roundFloats(bytes, step.precision);
                    } else {
                        roundFloats(slot.current.tensor, step.precision);
                    }
                }
        if (profile) {
            nodeProfile.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            ++nodeProfile.runs;
        }
        if (options.observer) {
            // arena bytes are reused later: an observer that keeps what it sees gets its own copy
            const bool keeps = options.observer->keepsOutputs();
            const bool readsLayouts = !keeps && options.observer->readsPhysicalLayouts();
            std::vector<RuntimeValue> seen;
            std::vector<const PhysicalLayout *> layouts;
            for (std::size_t k = 0; k < step.outputs.size(); ++k) {
                const int s = step.outputs[k];
                const Slot *slot = s >= 0 && options.observer->wantsOutput(node, k) ? &m_slots[static_cast<std::size_t>(s)] : nullptr;
                RuntimeValue v = slot ? slot->current : RuntimeValue{};
                const PhysicalLayout *layout = nullptr;
                if (slot && slot->nativeLayout && readsLayouts && slot->physicalLayout) {
                    layout = &*slot->physicalLayout;
                    v.tensor = v.tensor.readOnly();
                } else if (slot && slot->nativeLayout) {
                    v.tensor = rowMajorCopy(*slot);
                } else if (v.isTensor() && v.tensor.isWritableView()) {
                    v.tensor = keeps ? v.tensor.clone() : v.tensor.readOnly();
                }
                seen.push_back(std::move(v));
                layouts.push_back(layout);
            }
            if (readsLayouts)
                options.observer->nodeFinishedInLayouts(node, seen, layouts);
            else
                options.observer->nodeFinished(node, seen);
        }
        for (const int s : step.releaseAfter) {
            Slot &slot = m_slots[static_cast<std::size_t>(s)];
            if (slot.kind == Slot::Kind::Dynamic)
                fallbackLive -= std::min(fallbackLive, slot.current.ownedBytes());
            slot.current = RuntimeValue{};
        }
    }
    NamedValues results;
    const ir::Graph &main = m_model.graph(m_model.mainGraph());
    for (std::size_t i = 0; i < m_outputSlots.size(); ++i) {
        RuntimeValue v = m_slots[static_cast<std::size_t>(m_outputSlots[i])].current;
        if (v.isTensor() && v.tensor.isWritableView())
            v.tensor = v.tensor.clone(); // the next run overwrites the arena
        results.emplace_back(m_model.value(main.outputs[i]).name, std::move(v));
    }
    for (Slot &slot : m_slots) // drop what the caller's feeds and the fallbacks hold
        if (slot.kind == Slot::Kind::Input || slot.kind == Slot::Kind::Dynamic || slot.kind == Slot::Kind::Alias)
            slot.current = RuntimeValue{};
    return results;
}

} // namespace portolan::runtime::cpu
