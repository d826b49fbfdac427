// If, Loop and Scan: their bodies run through the interpreter's SubgraphRunner, which makes outer-scope
// values visible; per-iteration scan outputs are stacked along a new axis.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <algorithm>

namespace portolan::runtime::kernels {

namespace {

support::Expected<bool> condition(KernelContext &ctx, const RuntimeValue *v, const char *what)
{
    if (!v || !v->isTensor() || v->tensor.dataType() != TensorProto::BOOL || v->tensor.size() != 1)
        return ctx.error(std::string(what) + " must be a single bool" + (v ? ", got " + v->describe() : ""));
    return v->tensor.data<std::uint8_t>()[0] != 0;
}

support::Expected<std::vector<RuntimeValue>> runBody(KernelContext &ctx, ir::GraphId body,
                                                     std::vector<RuntimeValue> inputs, std::size_t expectedOutputs)
{
    auto outputs = ctx.subgraphs().runSubgraph(body, std::move(inputs));
    if (outputs && outputs->size() != expectedOutputs)
        return ctx.error("the body returns " + std::to_string(outputs->size()) + " values, " +
                         std::to_string(expectedOutputs) + " were expected");
    return outputs;
}

// Stacks one scan output's per-iteration tensors along `axis` (negative counts from the back of the
// stacked rank). With no iteration at all the body's declared type gives an empty tensor.
support::Expected<Tensor> stackScanOutput(KernelContext &ctx, const std::vector<Tensor> &items, std::int64_t axis,
                                          ir::GraphId body, std::size_t bodyOutput)
{
    if (items.empty()) {
        const onnx::TypeProto &type = ctx.model().value(ctx.model().graph(body).outputs[bodyOutput]).type();
        const int elementType = ir::tensorElementType(type);
        if (!elementType)
            return ctx.error("ran no iteration and the body does not declare the element type of scan output " +
                             std::to_string(bodyOutput));
        Shape shape{0};
        if (const ir::Shape declared = ir::tensorShape(type); declared.dims)
            for (const ir::Dim &d : *declared.dims)
                shape.push_back(d.isStatic() ? d.extent() : 0);
        return ctx.allocate(elementType, shape);
    }
    const auto rank = static_cast<std::int64_t>(items.front().rank()) + 1;
    if (axis < -rank || axis >= rank)
        return ctx.error("scan output axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return joinAxis(ctx, items, static_cast<std::size_t>(axis < 0 ? axis + rank : axis), true);
}

std::string iterationLimitMessage(std::int64_t limit)
{
    return "ran past the limit of " + std::to_string(limit) + " iterations (a loop that never ends?)";
}

} // namespace

support::Status ifElse(KernelContext &ctx)
{
    auto cond = condition(ctx, ctx.inputValue(0), "the condition");
    if (!cond)
        return cond.takeError();
    // both branches are required, whichever one runs
    const ir::GraphId thenBranch = ctx.attrGraph("then_branch"), elseBranch = ctx.attrGraph("else_branch");
    const ir::GraphId branch = *cond ? thenBranch : elseBranch;
    if (!branch.valid())
        return ctx.error(std::string("has no ") + (*cond ? "then_branch" : "else_branch"));
    auto outputs = runBody(ctx, branch, {}, ctx.outputCount());
    if (!outputs)
        return outputs.takeError();
    for (std::size_t i = 0; i < outputs->size(); ++i)
        ctx.setOutputValue(i, std::move((*outputs)[i]));
    return support::Status::ok();
}

// Loop(M, cond, v...): body(i, cond, v...) → (cond, v..., scan outputs...). M and cond are both optional.
support::Status loop(KernelContext &ctx)
{
    const ir::GraphId body = ctx.attrGraph("body");
    if (!body.valid())
        return ctx.error("has no body graph");
    if (ctx.inputCount() < 2)
        return ctx.error("needs the M and cond inputs (either may be empty)");
    const std::size_t carried = ctx.inputCount() - 2;
    if (ctx.outputCount() < carried)
        return ctx.error("has " + std::to_string(carried) + " loop-carried inputs but only " +
                         std::to_string(ctx.outputCount()) + " outputs");
    const std::size_t scans = ctx.outputCount() - carried;

    std::optional<std::int64_t> tripCount;
    if (ctx.inputValue(0)) {
        auto m = scalarInteger(ctx, ctx.input(0), "the trip count M");
        if (!m)
            return m.takeError();
        tripCount = *m;
    }
    bool cond = true;
    const bool hasCond = ctx.inputValue(1) != nullptr;
    if (hasCond) {
        auto c = condition(ctx, ctx.inputValue(1), "the cond input");
        if (!c)
            return c.takeError();
        cond = *c;
    }
    std::vector<RuntimeValue> state;
    for (std::size_t i = 0; i < carried; ++i) {
        if (!ctx.inputValue(2 + i))
            return ctx.error("loop-carried input " + std::to_string(2 + i) + " is missing");
        state.push_back(*ctx.inputValue(2 + i));
    }

    const std::int64_t limit = ctx.subgraphs().maxLoopIterations();
    std::vector<std::vector<Tensor>> scanItems(scans);
    for (std::int64_t i = 0; (!tripCount || i < *tripCount) && cond; ++i) {
        if (i >= limit)
            return ctx.error(iterationLimitMessage(limit));
        std::vector<RuntimeValue> inputs;
        inputs.push_back(RuntimeValue::ofTensor(Tensor::fromVector<std::int64_t>(TensorProto::INT64, {}, {i})));
        inputs.push_back(RuntimeValue::ofTensor(
            Tensor::fromVector<std::uint8_t>(TensorProto::BOOL, {}, {static_cast<std::uint8_t>(cond)})));
        for (RuntimeValue &v : state)
            inputs.push_back(std::move(v));
        auto outputs = runBody(ctx, body, std::move(inputs), 1 + carried + scans);
        if (!outputs)
            return outputs.takeError();
        if (hasCond) {
            auto c = condition(ctx, &(*outputs)[0], "the body's cond output");
            if (!c)
                return c.takeError();
            cond = *c;
        }
        for (std::size_t k = 0; k < carried; ++k)
            state[k] = std::move((*outputs)[1 + k]);
        for (std::size_t k = 0; k < scans; ++k) {
            RuntimeValue &v = (*outputs)[1 + carried + k];
            if (!v.isTensor())
                return ctx.error("scan output " + std::to_string(k) + " must be a tensor, got " + v.describe());
            scanItems[k].push_back(std::move(v.tensor));
        }
    }
    for (std::size_t k = 0; k < carried; ++k)
        ctx.setOutputValue(k, std::move(state[k]));
    for (std::size_t k = 0; k < scans; ++k) {
        auto stacked = stackScanOutput(ctx, scanItems[k], 0, body, 1 + carried + k);
        if (!stacked)
            return stacked.takeError();
        scanItems[k].clear();
        ctx.setOutput(carried + k, std::move(*stacked));
    }
    return support::Status::ok();
}

namespace {

struct ScanResult {
    std::vector<RuntimeValue> state;
    std::vector<std::vector<Tensor>> outputs; ///< [scan output][iteration], in iteration order
};

// Runs the body `steps` times; scan input j is cut along axes[j], from its back when reverse[j].
support::Expected<ScanResult> iterateScan(KernelContext &ctx, ir::GraphId body, std::vector<RuntimeValue> state,
                                          const std::vector<Tensor> &scanInputs, const std::vector<std::int64_t> &axes,
                                          const std::vector<bool> &reverse, std::int64_t steps, std::size_t scanOutputs)
{
    if (steps > ctx.subgraphs().maxLoopIterations())
        return ctx.error(iterationLimitMessage(ctx.subgraphs().maxLoopIterations()));
    ScanResult result{std::move(state), std::vector<std::vector<Tensor>>(scanOutputs)};
    const std::size_t carried = result.state.size();
    for (std::int64_t t = 0; t < steps; ++t) {
        std::vector<RuntimeValue> inputs = std::move(result.state);
        for (std::size_t j = 0; j < scanInputs.size(); ++j) {
            auto slice = sliceAxis(ctx, scanInputs[j], static_cast<std::size_t>(axes[j]), reverse[j] ? steps - 1 - t : t,
                                   1, false);
            if (!slice)
                return slice.takeError();
            inputs.push_back(RuntimeValue::ofTensor(std::move(*slice)));
        }
        auto outputs = runBody(ctx, body, std::move(inputs), carried + scanOutputs);
        if (!outputs)
            return outputs.takeError();
        result.state.assign(std::make_move_iterator(outputs->begin()),
                            std::make_move_iterator(outputs->begin() + static_cast<std::ptrdiff_t>(carried)));
        for (std::size_t k = 0; k < scanOutputs; ++k) {
            RuntimeValue &v = (*outputs)[carried + k];
            if (!v.isTensor())
                return ctx.error("scan output " + std::to_string(k) + " must be a tensor, got " + v.describe());
            result.outputs[k].push_back(std::move(v.tensor));
        }
    }
    return result;
}

// Per-input attribute list (scan_input_axes, directions…), `fallback` for each when absent.
support::Expected<std::vector<std::int64_t>> perInput(KernelContext &ctx, const char *name, std::size_t count,
                                                      std::int64_t fallback)
{
    std::vector<std::int64_t> v = ctx.attrInts(name);
    if (!ctx.hasAttribute(name))
        v.assign(count, fallback);
    if (v.size() != count)
        return ctx.error(std::string(name) + " has " + std::to_string(v.size()) + " entries, " + std::to_string(count) +
                         " were expected");
    return v;
}

std::vector<bool> reversed(const std::vector<std::int64_t> &directions)
{
    std::vector<bool> r;
    for (const std::int64_t d : directions)
        r.push_back(d != 0);
    return r;
}

// Opset 8: every input and output has a leading batch axis; each batch element is scanned on its own
// (for sequence_lens[b] steps, outputs padded with zeros up to the full length).
support::Status scan8(KernelContext &ctx, ir::GraphId body, std::size_t scanInputs)
{
    const std::size_t carried = ctx.inputCount() - 1 - scanInputs;
    const std::size_t scanOutputs = ctx.outputCount() - carried;
    auto directions = perInput(ctx, "directions", scanInputs, 0);
    if (!directions)
        return directions.takeError();
    for (std::size_t i = 1; i < ctx.inputCount(); ++i)
        if (!ctx.hasInput(i) || ctx.input(i).rank() < (i > carried ? 2u : 1u))
            return ctx.error("input " + std::to_string(i) + " must be a tensor with a batch axis" +
                             (i > carried ? " and a sequence axis" : ""));
    const std::int64_t batch = ctx.input(1).dim(0);
    const std::int64_t length = scanInputs ? ctx.input(1 + carried).dim(1) : 0;
    for (std::size_t i = 1; i < ctx.inputCount(); ++i)
        if (ctx.input(i).dim(0) != batch || (i > carried && ctx.input(i).dim(1) != length))
            return ctx.error("all inputs must share the batch size and scan inputs the sequence length");
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(batch), length);
    if (ctx.hasInput(0)) {
        const Tensor lens = convertTensor(ctx.input(0), TensorProto::INT64);
        if (lens.size() != batch)
            return ctx.error("sequence_lens must have one entry per batch element");
        for (std::int64_t b = 0; b < batch; ++b) {
            lengths[static_cast<std::size_t>(b)] = lens.data<std::int64_t>()[b];
            if (lengths[static_cast<std::size_t>(b)] < 0 || lengths[static_cast<std::size_t>(b)] > length)
                return ctx.error("sequence_lens[" + std::to_string(b) + "] is out of [0, " + std::to_string(length) + "]");
        }
    }
    auto cut = [&](std::size_t input, std::int64_t b) { return sliceAxis(ctx, ctx.input(input), 0, b, 1, false); };
    std::vector<std::vector<Tensor>> states(carried), outputs(scanOutputs);
    std::vector<std::vector<std::vector<Tensor>>> perBatch(scanOutputs); // [output][batch][step]
    for (std::int64_t b = 0; b < batch; ++b) {
        std::vector<RuntimeValue> state;
        std::vector<Tensor> inputs;
        for (std::size_t i = 1; i < ctx.inputCount(); ++i) {
            auto slice = cut(i, b);
            if (!slice)
                return slice.takeError();
            if (i <= carried)
                state.push_back(RuntimeValue::ofTensor(std::move(*slice)));
            else
                inputs.push_back(std::move(*slice));
        }
        const std::int64_t steps = lengths[static_cast<std::size_t>(b)];
        auto run = iterateScan(ctx, body, std::move(state), inputs, std::vector<std::int64_t>(scanInputs, 0),
                               reversed(*directions), steps, scanOutputs);
        if (!run)
            return run.takeError();
        for (std::size_t k = 0; k < carried; ++k) {
            if (!run->state[k].isTensor())
                return ctx.error("state " + std::to_string(k) + " must stay a tensor");
            states[k].push_back(std::move(run->state[k].tensor));
        }
        for (std::size_t k = 0; k < scanOutputs; ++k)
            perBatch[k].push_back(std::move(run->outputs[k]));
    }
    // pad short batch elements with zeros shaped like any element's output
    for (std::size_t k = 0; k < scanOutputs; ++k) {
        const auto full = std::find_if(perBatch[k].begin(), perBatch[k].end(), [](const auto &v) { return !v.empty(); });
        const Tensor model = full != perBatch[k].end() ? full->front() : Tensor();
        for (std::vector<Tensor> &items : perBatch[k]) {
            if (model.defined() && static_cast<std::int64_t>(items.size()) < length) {
                auto zeros = ctx.allocate(model.dataType(), model.shape());
                if (!zeros)
                    return zeros.takeError();
                items.resize(static_cast<std::size_t>(length), *zeros);
            }
            auto stacked = stackScanOutput(ctx, items, 0, body, carried + k);
            if (!stacked)
                return stacked.takeError();
            items.clear();
            outputs[k].push_back(std::move(*stacked));
        }
    }
    for (std::size_t k = 0; k < carried; ++k) {
        auto joined = stackScanOutput(ctx, states[k], 0, body, k);
        if (!joined)
            return joined.takeError();
        ctx.setOutput(k, std::move(*joined));
    }
    for (std::size_t k = 0; k < scanOutputs; ++k) {
        auto joined = stackScanOutput(ctx, outputs[k], 0, body, carried + k);
        if (!joined)
            return joined.takeError();
        ctx.setOutput(carried + k, std::move(*joined));
    }
    return support::Status::ok();
}

} // namespace

// Scan: N state inputs then M scan inputs; the body maps (state..., slices...) → (state..., scan outputs...).
support::Status scan(KernelContext &ctx)
{
    const ir::GraphId body = ctx.attrGraph("body");
    if (!body.valid())
        return ctx.error("has no body graph");
    const std::int64_t m = ctx.attrInt("num_scan_inputs", -1);
    const std::size_t first = ctx.opset() < 9 ? 1 : 0; // opset 8 starts with sequence_lens
    if (m < 1 || static_cast<std::size_t>(m) + first > ctx.inputCount())
        return ctx.error("num_scan_inputs must be between 1 and the number of inputs");
    const auto scanInputs = static_cast<std::size_t>(m);
    const std::size_t carried = ctx.inputCount() - first - scanInputs;
    if (ctx.outputCount() < carried)
        return ctx.error("has fewer outputs than state inputs");
    if (ctx.opset() < 9)
        return scan8(ctx, body, scanInputs);

    const std::size_t scanOutputs = ctx.outputCount() - carried;
    auto inputAxes = perInput(ctx, "scan_input_axes", scanInputs, 0);
    auto inputDirections = perInput(ctx, "scan_input_directions", scanInputs, 0);
    auto outputAxes = perInput(ctx, "scan_output_axes", scanOutputs, 0);
    auto outputDirections = perInput(ctx, "scan_output_directions", scanOutputs, 0);
    for (auto *e : {&inputAxes, &inputDirections, &outputAxes, &outputDirections})
        if (!*e)
            return e->takeError();

    std::vector<RuntimeValue> state;
    for (std::size_t i = 0; i < carried; ++i) {
        if (!ctx.inputValue(i))
            return ctx.error("state input " + std::to_string(i) + " is missing");
        state.push_back(*ctx.inputValue(i));
    }
    std::vector<Tensor> inputs;
    std::int64_t steps = -1;
    for (std::size_t j = 0; j < scanInputs; ++j) {
        if (!ctx.hasInput(carried + j))
            return ctx.error("scan input " + std::to_string(j) + " is missing");
        const Tensor &t = ctx.input(carried + j);
        std::int64_t &axis = (*inputAxes)[j];
        const auto rank = static_cast<std::int64_t>(t.rank());
        if (axis < -rank || axis >= rank)
            return ctx.error("scan_input_axes[" + std::to_string(j) + "] = " + std::to_string(axis) +
                             " is out of range for rank " + std::to_string(rank));
        axis = axis < 0 ? axis + rank : axis;
        if (steps >= 0 && t.dim(static_cast<std::size_t>(axis)) != steps)
            return ctx.error("scan inputs disagree on the sequence length (" + std::to_string(steps) + " vs " +
                             std::to_string(t.dim(static_cast<std::size_t>(axis))) + ")");
        steps = t.dim(static_cast<std::size_t>(axis));
        inputs.push_back(t);
    }
    auto run = iterateScan(ctx, body, std::move(state), inputs, *inputAxes, reversed(*inputDirections), steps,
                           scanOutputs);
    if (!run)
        return run.takeError();
    for (std::size_t k = 0; k < carried; ++k)
        ctx.setOutputValue(k, std::move(run->state[k]));
    for (std::size_t k = 0; k < scanOutputs; ++k) {
        std::vector<Tensor> &items = run->outputs[k];
        if ((*outputDirections)[k] != 0)
            std::reverse(items.begin(), items.end());
        auto stacked = stackScanOutput(ctx, items, (*outputAxes)[k], body, carried + k);
        if (!stacked)
            return stacked.takeError();
        ctx.setOutput(carried + k, std::move(*stacked));
    }
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
