// Compiling a shape plan: infer every shape at the plan's input dims, bind each node to a native
// kernel where one applies (else to its reference kernel), give native outputs planned arena
// buffers (views share their input's), and list what each step releases.
#include "runtime/cpu/CompiledGraph.h"
#include "runtime/cpu/CompiledGraphParts.h"

#include "analysis/ShapeInference.h"
#include "opset/OpVersions.h"
#include "ir/Topology.h"
#include "ir/Type.h"
#include "runtime/reference/ModelConstants.h"
#include "runtime/cpu/Calibration.h"
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/AttributeGuard.h"
#include "runtime/reference/KernelRegistry.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <tuple>

namespace portolan::runtime::cpu {

using support::makeError;

namespace {

std::string displayName(const ir::Node &node)
{
    return node.name.empty() ? "(" + node.opType + ")" : node.name;
}

bool hasSubgraphs(const ir::Node &node)
{
    for (const ir::Attribute &a : node.attributes)
        if (!a.subgraphs.empty())
            return true;
    return false;
}

std::shared_ptr<std::byte[]> allocateArena(std::size_t bytes)
{
    auto *raw = static_cast<std::byte *>(::operator new[](std::max<std::size_t>(bytes, 1), std::align_val_t(kBufferAlignment)));
    return std::shared_ptr<std::byte[]>(raw, [](std::byte *p) { ::operator delete[](p, std::align_val_t(kBufferAlignment)); });
}

} // namespace

CompiledGraph::CompiledGraph(const ir::Model &model) : m_model(model) {}

template <typename Root, typename SlotFor>
void CompiledGraph::keepBlockedLayouts(std::vector<BufferLifetime> &buffers, const Root &root, const SlotFor &slotFor)
{
    // A buffer stays blocked when every step writing any value in it (views and in-place outputs
    // included) produces one blocked layout and every step reading one computes in it or adopts it
    // (pooling). Buffers are settled in the order they were created, so a kernel that adopted its
    // input's layout offers the matching layout for its output by the time that buffer is settled.
    struct Use {
        std::size_t step, k;
    };
    std::vector<std::vector<Use>> writers(buffers.size()), readers(buffers.size());
    std::vector<char> pinned(buffers.size(), 0); // read by a fallback's subgraph, or a graph output
    auto bufferOf = [&](int s) {
        if (s < 0)
            return -1;
        const Slot &r = m_slots[static_cast<std::size_t>(root(s))];
        return r.kind == Slot::Kind::Planned ? r.buffer : -1;
    };
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const Step &step = m_steps[i];
        for (std::size_t k = 0; k < step.outputs.size(); ++k)
            if (const int b = bufferOf(step.outputs[k]); b >= 0)
                writers[static_cast<std::size_t>(b)].push_back({i, k});
        for (std::size_t k = 0; k < step.inputs.size(); ++k)
            if (const int b = bufferOf(step.inputs[k]); b >= 0)
                readers[static_cast<std::size_t>(b)].push_back({i, k});
        for (const auto &[value, s] : step.captured)
            if (const int b = bufferOf(s); b >= 0)
                pinned[static_cast<std::size_t>(b)] = 1;
    }
    for (const ir::ValueId out : m_model.graph(m_model.mainGraph()).outputs)
        if (const int b = bufferOf(slotFor(out)); b >= 0)
            pinned[static_cast<std::size_t>(b)] = 1;

    for (std::size_t b = 0; b < buffers.size(); ++b) {
        if (pinned[b] || writers[b].empty())
            continue;
        auto kernelOf = [&](const Use &u) -> CpuKernel * { return m_steps[u.step].kernel.get(); };
        const std::optional<dnnl::memory::desc> layout = kernelOf(writers[b].front())->nativeOutputLayout(writers[b].front().k);
        bool agreed = layout.has_value();
        for (std::size_t w = 1; agreed && w < writers[b].size(); ++w)
            agreed = kernelOf(writers[b][w])->nativeOutputLayout(writers[b][w].k) == layout;
        for (std::size_t r = 0; agreed && r < readers[b].size(); ++r) {
            const CpuKernel *reader = kernelOf(readers[b][r]);
            agreed = reader && (reader->nativeInputLayout(readers[b][r].k) == layout ||
                                reader->canAdoptInputLayout(readers[b][r].k, *layout));
        }
        if (!agreed)
            continue;
        for (const Use &u : readers[b]) {
            if (kernelOf(u)->nativeInputLayout(u.k) != layout)
                kernelOf(u)->adoptInputLayout(u.k, *layout);
            kernelOf(u)->useNativeLayout(true, u.k);
        }
        for (const Use &u : writers[b]) {
            kernelOf(u)->useNativeLayout(false, u.k);
            Slot &slot = m_slots[static_cast<std::size_t>(m_steps[u.step].outputs[u.k])];
            slot.nativeLayout = layout;
            if (slot.shape)
                slot.physicalLayout = onednn::physicalLayoutOf(*layout, *slot.shape);
            ++m_blockedValues;
        }
        buffers[b].bytes = layout->get_size(); // blocked channels may be padded
    }
}
CompiledGraph::~CompiledGraph() = default;

support::Expected<std::unique_ptr<CompiledGraph>>
CompiledGraph::compile(const ir::Model &model, const std::map<std::string, Shape> &inputShapes,
                       const std::unordered_map<std::uint32_t, Tensor> &constants, const CompileOptions &options)
{
    std::unique_ptr<CompiledGraph> g(new CompiledGraph(model));
    const ir::Graph &main = model.graph(model.mainGraph());
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return order.takeError();
    const analysis::ShapeInferenceResult inferred = analysis::inferShapesAt(model, inputShapes);

    std::unordered_map<std::uint32_t, int> slotOf;
    auto newSlot = [&](ir::ValueId v, Slot::Kind kind) {
        Slot s;
        s.kind = kind;
        s.value = v;
        const ir::Value &value = model.value(v);
        s.dataType = value.elementType();
        if (auto it = inferred.types.find(value.name); it != inferred.types.end()) {
            if (it->second.has_tensor_type() && it->second.tensor_type().elem_type())
                s.dataType = it->second.tensor_type().elem_type();
            s.shape = analysis::staticDims(it->second);
        }
        if (kind == Slot::Kind::Constant)
            if (auto it = constants.find(v.index); it != constants.end())
                s.current = RuntimeValue::ofTensor(it->second);
        slotOf[v.index] = static_cast<int>(g->m_slots.size());
        g->m_slots.push_back(std::move(s));
        return static_cast<int>(g->m_slots.size() - 1);
    };
    for (const ir::ValueId in : main.inputs) {
        const ir::Value &value = model.value(in);
        const auto given = inputShapes.find(value.name);
        const bool constant = value.isInitializer() && given == inputShapes.end();
        const int s = newSlot(in, constant ? Slot::Kind::Constant : Slot::Kind::Input);
        if (given != inputShapes.end())
            g->m_slots[s].shape = given->second;
        g->m_inputSlots.push_back(s);
    }
    auto slotFor = [&](ir::ValueId v) -> int {
        if (!v.valid())
            return -1;
        if (auto it = slotOf.find(v.index); it != slotOf.end())
            return it->second;
        if (model.value(v).isInitializer())
            return newSlot(v, Slot::Kind::Constant);
        return -1;
    };
    auto constantOf = [&](int slot) -> const Tensor * {
        const Slot &s = g->m_slots[static_cast<std::size_t>(slot)];
        return s.kind == Slot::Kind::Constant && s.current.isTensor() ? &s.current.tensor : nullptr;
    };
    // A lowered copy of a float constant, once per (constant, lowering): rounded to fp16/bf16, or
    // quantized per channel of `axis` for int8. Readers at fp32 keep the original slot.
    std::map<std::tuple<int, Precision, std::size_t>, int> loweredSlots;
    auto lowerConstant = [&](int slot, Precision to, std::size_t axis) {
        const auto key = std::make_tuple(slot, to, axis);
        if (auto it = loweredSlots.find(key); it != loweredSlots.end())
            return it->second;
        Slot lowered = g->m_slots[static_cast<std::size_t>(slot)];
        Tensor copy = to == Precision::Int8 ? fakeQuantizePerChannel(lowered.current.tensor, axis) : lowered.current.tensor.clone();
        if (to != Precision::Int8)
            roundFloats(copy, to);
        lowered.current = RuntimeValue::ofTensor(std::move(copy));
        lowered.storedAs = to;
        g->m_slots.push_back(std::move(lowered));
        return loweredSlots[key] = static_cast<int>(g->m_slots.size() - 1);
    };

    // The last step reading each value (graph outputs: past the end), for in-place outputs.
    std::unordered_map<std::uint32_t, int> lastUse;
    for (std::size_t i = 0; i < order->size(); ++i) {
        const ir::NodeId n = (*order)[i];
        for (const ir::ValueId in : model.node(n).inputs)
            if (in.valid())
                lastUse[in.index] = static_cast<int>(i);
        if (!model.node(n).attributes.empty())
            for (const ir::ValueId in : ir::capturedValues(model, n))
                lastUse[in.index] = static_cast<int>(i);
    }
    for (const ir::ValueId out : main.outputs)
        lastUse[out.index] = std::numeric_limits<int>::max();
    auto root = [&](int s) {
        while (g->m_slots[static_cast<std::size_t>(s)].kind == Slot::Kind::Alias)
            s = g->m_slots[static_cast<std::size_t>(s)].aliasOf;
        return s;
    };
    std::vector<int> bufferLastUse; // per planned buffer: the last read of any value viewing it
    std::size_t inPlaceBytes = 0;   // outputs written over an input: a naive executor allocates them

    std::string refused;
    MemoryBudget noBudget;
    NoSubgraphs noSubgraphs("no subgraphs at compile time");
    std::vector<BufferLifetime> buffers;
    for (const ir::NodeId n : *order) {
        const ir::Node &node = model.node(n);
        const int opset = model.opsetVersion(node.domain).value_or(1);
        if (outputsKnown(node, constants)) { // a Constant node, or one folded when the executor was made
            Step step;
            step.node = n;
            step.precomputed = true;
            for (const ir::ValueId out : node.outputs)
                step.outputs.push_back(out.valid() ? newSlot(out, Slot::Kind::Constant) : -1);
            NodeProfile profile;
            profile.node = n;
            profile.name = displayName(node);
            profile.opType = node.opType;
            profile.implementation = node.isConstant() ? "constant" : "folded";
            profile.precision = precisionName(Precision::Fp32);
            if (options.precision.precision != Precision::Fp32)
                profile.whyPrecision = "a constant: each lowered reader gets its own lowered copy";
            g->m_profiles.push_back(std::move(profile));
            g->m_steps.push_back(std::move(step));
            continue;
        }
        Step step;
        step.node = n;
        const bool movesData = movesDataOnly(node);
        const NodePrecision chosen = movesData ? NodePrecision{} : choosePrecision(node, options.precision);
        step.precision = chosen.precision;
        KernelContext attributes(model, node, opset, {}, noBudget, noSubgraphs);
        NodeBinding binding{model, node, opset, {}, {}, attributes};
        bool allStatic = true;
        bool sameStoredAs = true;
        std::optional<Precision> inputsStoredAs; // what a data-movement node's outputs hold
        for (const ir::ValueId in : node.inputs) {
            int s = slotFor(in);
            if (in.valid() && s < 0)
                return makeError("missing-value", "input '" + model.value(in).name + "' is produced by no node",
                                 model.sourcePath, displayName(node));
            const std::size_t k = step.inputs.size();
            if (s >= 0 && g->m_slots[static_cast<std::size_t>(s)].dataType == onnx::TensorProto::FLOAT) {
                const Slot &slot = g->m_slots[static_cast<std::size_t>(s)];
                if (inputsStoredAs && *inputsStoredAs != slot.storedAs)
                    sameStoredAs = false;
                inputsStoredAs = slot.storedAs;
                const bool quantized = chosen.precision == Precision::Int8 && isQuantizedInput(node, k);
                const bool rounded = chosen.precision == Precision::Fp16 || chosen.precision == Precision::Bf16;
                if (constantOf(s) && (rounded || quantized)) {
                    const std::size_t axis = quantized && k == 1 ? weightChannelAxis(node, constantOf(s)->shape())
                                                                 : constantOf(s)->shape().size(); // per tensor
                    s = lowerConstant(s, chosen.precision, axis);
                } else if (rounded && slot.storedAs != chosen.precision) {
                    step.casts.push_back({k, chosen.precision, 0.f});
                } else if (quantized) {
                    auto scale = calibratedScale(model, node, k, options.precision);
                    if (!scale)
                        return scale.takeError();
                    step.casts.push_back({k, Precision::Int8, *scale});
                }
            }
            step.inputs.push_back(s);
            BoundTensor bound;
            if (s >= 0) {
                const Slot &slot = g->m_slots[static_cast<std::size_t>(s)];
                bound.present = true;
                bound.dataType = slot.dataType;
                if (const Tensor *c = constantOf(s)) {
                    bound.constant = *c;
                    bound.shape = c->shape();
                } else if (slot.shape) {
                    bound.shape = *slot.shape;
                } else {
                    allStatic = false;
                }
            }
            binding.inputs.push_back(std::move(bound));
        }
        for (const ir::ValueId out : node.outputs) {
            BoundTensor bound;
            if (out.valid()) {
                const int s = newSlot(out, Slot::Kind::Dynamic);
                const Slot &slot = g->m_slots[static_cast<std::size_t>(s)];
                bound.present = true;
                bound.dataType = slot.dataType;
                if (slot.shape)
                    bound.shape = *slot.shape;
                else
                    allStatic = false;
                step.outputs.push_back(s);
            } else {
                step.outputs.push_back(-1);
            }
            binding.outputs.push_back(std::move(bound));
        }
        // Where the outputs' float values stand: rounded by this node, or as its inputs were.
        Precision outputsStoredAs = Precision::Fp32;
        if (chosen.precision == Precision::Fp16 || chosen.precision == Precision::Bf16) {
            step.roundOutputs = true;
            outputsStoredAs = chosen.precision;
        } else if (movesData && inputsStoredAs && sameStoredAs) {
            outputsStoredAs = *inputsStoredAs;
        }
        for (const int s : step.outputs)
            if (s >= 0)
                g->m_slots[static_cast<std::size_t>(s)].storedAs = outputsStoredAs;

        NodeProfile profile;
        profile.node = n;
        profile.name = displayName(node);
        profile.opType = node.opType;
        profile.precision = precisionName(movesData ? outputsStoredAs : chosen.precision);
        profile.whyPrecision = movesData && options.precision.precision != Precision::Fp32 ? "moves data only" : chosen.why;
        if (allStatic)
            profile.flops = boundFlops(binding);
        const CpuKernelFactory factory = findCpuKernel(node.domain, node.opType, opset);
        if (options.kernelOverride && allStatic && !hasSubgraphs(node))
            step.kernel = options.kernelOverride(binding, profile.whyFallback);
        if (step.kernel) {
            // the override's kernel
        } else if (!factory) {
            profile.whyFallback = "no native kernel for " + opset::describeOpVersion(node.domain, node.opType, opset);
        } else if (hasSubgraphs(node)) {
            profile.whyFallback = "has subgraphs";
        } else if (!allStatic) {
            profile.whyFallback = "a shape is unknown at compile time";
        } else {
            step.kernel = factory(binding, profile.whyFallback);
            if (step.kernel)
                if (const auto ignored = ignoredAttribute(attributes)) { // the reference kernel may have it
                    step.kernel.reset();
                    profile.whyFallback = "the native kernel does not implement attribute " + *ignored;
                }
        }
        if (step.kernel) {
            profile.implementation = step.kernel->implementation();
            for (std::size_t k = 0; k < step.outputs.size(); ++k) {
                if (step.outputs[k] < 0)
                    continue;
                Slot &slot = g->m_slots[static_cast<std::size_t>(step.outputs[k])];
                const int here = static_cast<int>(g->m_steps.size());
                const int readUntil = lastUse.contains(slot.value.index) ? lastUse[slot.value.index] : here;
                const auto bytes = static_cast<std::size_t>(elementCount(*slot.shape)) * ir::dataTypeSize(slot.dataType);
                int aliased = step.kernel->aliasedInput(k);
                const int reuse = step.kernel->inPlaceInput(k);
                const bool castIn = std::any_of(step.casts.begin(), step.casts.end(),
                                                [&](const Step::InputCast &c) { return static_cast<int>(c.input) == reuse; });
                if (aliased < 0 && reuse >= 0 && !castIn && step.inputs[static_cast<std::size_t>(reuse)] >= 0) {
                    // the input's buffer, when no later step reads it through any of its views
                    const Slot &r = g->m_slots[static_cast<std::size_t>(root(step.inputs[static_cast<std::size_t>(reuse)]))];
                    if (r.kind == Slot::Kind::Planned && bufferLastUse[static_cast<std::size_t>(r.buffer)] <= here &&
                        buffers[static_cast<std::size_t>(r.buffer)].bytes == bytes && r.dataType == slot.dataType) {
                        aliased = reuse;
                        inPlaceBytes += (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
                    }
                }
                if (aliased >= 0) {
                    slot.kind = Slot::Kind::Alias;
                    slot.aliasOf = step.inputs[static_cast<std::size_t>(aliased)];
                    const Slot &r = g->m_slots[static_cast<std::size_t>(root(slot.aliasOf))];
                    if (r.kind == Slot::Kind::Planned)
                        bufferLastUse[static_cast<std::size_t>(r.buffer)] =
                            std::max(bufferLastUse[static_cast<std::size_t>(r.buffer)], readUntil);
                } else {
                    slot.kind = Slot::Kind::Planned;
                    slot.buffer = static_cast<int>(buffers.size());
                    const auto at = static_cast<std::uint32_t>(here);
                    buffers.push_back({bytes, at, at});
                    bufferLastUse.push_back(readUntil);
                }
            }
        } else {
            profile.implementation = "reference";
            if (!findReferenceKernel(node.domain, node.opType, opset))
                return makeError("no-kernel", "no native or reference kernel for " + node.opType + " at opset " +
                                                  std::to_string(opset), model.sourcePath, profile.name);
            if (!options.allowFallback)
                refused += (refused.empty() ? "" : "; ") + profile.name + " (" + node.opType + "): " + profile.whyFallback;
            if (!node.attributes.empty())
                for (const ir::ValueId v : ir::capturedValues(model, n))
                    if (const int s = slotFor(v); s >= 0)
                        step.captured.emplace_back(v, s);
        }
        g->m_profiles.push_back(std::move(profile));
        g->m_steps.push_back(std::move(step));
    }
    if (!refused.empty())
        return makeError("unsupported", "these nodes have no native kernel (run with fallback to use the reference "
                                        "kernels for them): " + refused, model.sourcePath);

    g->keepBlockedLayouts(buffers, root, slotFor);

    // Lifetimes: a read extends the slot and, through views, the buffer it views.
    auto read = [&](int s, int step) {
        for (int at = s;; at = g->m_slots[static_cast<std::size_t>(at)].aliasOf) {
            Slot &slot = g->m_slots[static_cast<std::size_t>(at)];
            slot.lastReader = std::max(slot.lastReader, step);
            if (slot.kind != Slot::Kind::Alias)
                break;
        }
        const Slot &r = g->m_slots[static_cast<std::size_t>(root(s))];
        if (r.kind == Slot::Kind::Planned)
            buffers[static_cast<std::size_t>(r.buffer)].lastStep =
                std::max(buffers[static_cast<std::size_t>(r.buffer)].lastStep, static_cast<std::uint32_t>(step));
    };
    for (std::size_t i = 0; i < g->m_steps.size(); ++i) {
        Step &step = g->m_steps[i];
        for (const int s : step.inputs)
            if (s >= 0)
                read(s, static_cast<int>(i));
        for (const auto &[value, s] : step.captured)
            read(s, static_cast<int>(i));
    }
    const int end = static_cast<int>(g->m_steps.size());
    for (const ir::ValueId out : main.outputs) {
        const int s = slotFor(out);
        if (s < 0)
            return makeError("missing-output", "graph output '" + model.value(out).name + "' is produced by no node",
                             model.sourcePath);
        read(s, end);
        g->m_outputSlots.push_back(s);
    }
    for (std::size_t s = 0; s < g->m_slots.size(); ++s) {
        const Slot &slot = g->m_slots[s];
        const bool transient = slot.kind == Slot::Kind::Dynamic || slot.kind == Slot::Kind::Alias;
        if (transient && slot.lastReader >= 0 && slot.lastReader < end)
            g->m_steps[static_cast<std::size_t>(slot.lastReader)].releaseAfter.push_back(static_cast<int>(s));
    }

    g->m_plan = planMemory(buffers);
    g->m_plan.naiveBytes += inPlaceBytes;
    g->m_arena = allocateArena(g->m_plan.arenaBytes);
    for (Slot &slot : g->m_slots)
        if (slot.kind == Slot::Kind::Planned)
            slot.current = RuntimeValue::ofTensor(Tensor::wrap(slot.dataType, *slot.shape,
                                                               g->m_arena.get() + g->m_plan.offsets[static_cast<std::size_t>(slot.buffer)],
                                                               g->m_arena));
    return g;
}

} // namespace portolan::runtime::cpu
