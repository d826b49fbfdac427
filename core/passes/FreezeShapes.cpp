// freeze-shapes: fix symbolic input dims, drop the intermediate shapes they made stale, re-infer.
//
//   Before: x: float[batch,3,224,224] → … → t: float[batch,64,112,112] → … → y: float[batch,1000]
//   After (input=1x3x224x224 or input=x:1x3x224x224):
//           x: float[1,3,224,224]     → … → t: float[1,64,112,112]     → … → y: float[1,1000]
//
// The option gives dims per graph input (not initializers): "1x3x224x224" for the model's only
// input, or "name:1x3x224x224,other:1x8". A given dim replaces a symbolic or unknown one; a static
// dim must be given unchanged (a conflict is an error naming the input and the dim), and the rank
// must match. Intermediate value_info shapes are cleared (their element types stay) because they
// may name the old symbols; then ONNX shape inference runs again and records what it finds, as
// infer-shapes does (its errors are match failures, not pass errors). Graph outputs keep their
// declarations, which inference refines (a symbolic output dim becomes static).
#include "passes/FreezeShapes.h"
#include "passes/Match.h"
#include "passes/Pass.h"
#include "passes/ShapeRecording.h"

#include <charconv>
#include <map>

namespace portolan::passes {

namespace {

using Dims = std::vector<std::int64_t>;

support::Error optionError(const std::string &text, const std::string &why)
{
    return support::makeError("bad-option", "freeze-shapes: option 'input' (\"" + text + "\") " + why +
                                                "; expected 1x3x224x224 or name:1x3x224x224,other:1x8");
}

support::Expected<Dims> parseDims(const std::string &optionText, const std::string &text)
{
    Dims dims;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(text.find('x', start), text.size());
        const std::string piece = text.substr(start, end - start);
        std::int64_t d = -1;
        const auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), d);
        if (piece.empty() || ec != std::errc() || ptr != piece.data() + piece.size() || d < 0)
            return optionError(optionText, "has a bad dim '" + piece + "' in '" + text + "'");
        dims.push_back(d);
        if (end == text.size())
            return dims;
        start = end + 1;
    }
}

std::vector<ir::ValueId> runtimeInputs(const ir::Model &model)
{
    std::vector<ir::ValueId> out;
    for (const ir::ValueId v : model.graph(model.mainGraph()).inputs)
        if (!model.value(v).isInitializer())
            out.push_back(v);
    return out;
}

/// The option as dims per input, checked against the model's inputs.
support::Expected<std::map<ir::ValueId, Dims>> parseOption(const ir::Model &model, const std::string &text)
{
    if (text.empty())
        return optionError(text, "is empty");
    const std::vector<ir::ValueId> inputs = runtimeInputs(model);
    std::string names;
    for (const ir::ValueId v : inputs)
        names += (names.empty() ? "" : ", ") + model.value(v).name;
    std::map<ir::ValueId, Dims> out;
    if (text.find(':') == std::string::npos) {
        if (inputs.size() != 1)
            return optionError(text, "names no input, but the model has " + std::to_string(inputs.size()) +
                                         " inputs (" + names + ")");
        auto dims = parseDims(text, text);
        if (!dims)
            return dims.error();
        out[inputs.front()] = std::move(*dims);
        return out;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string entry = text.substr(start, end - start);
        const std::size_t colon = entry.rfind(':');
        if (colon == std::string::npos || colon == 0)
            return optionError(text, "has an entry '" + entry + "' without 'name:'");
        const std::string name = entry.substr(0, colon);
        ir::ValueId input;
        for (const ir::ValueId v : inputs)
            if (model.value(v).name == name)
                input = v;
        if (!input.valid())
            return optionError(text, "names '" + name + "', which is not a graph input (inputs: " + names + ")");
        auto dims = parseDims(text, entry.substr(colon + 1));
        if (!dims)
            return dims.error();
        if (!out.emplace(input, std::move(*dims)).second)
            return optionError(text, "gives '" + name + "' twice");
        start = end + 1;
    }
    return out;
}

/// `type` with its dims set to `dims`; fails on a rank or static-dim conflict.
support::Expected<onnx::TypeProto> frozenType(const ir::Value &input, const Dims &dims)
{
    if (!input.info.type().has_tensor_type())
        return support::makeError("bad-option", "freeze-shapes: input '" + input.name + "' is not a tensor");
    onnx::TypeProto type = input.info.type();
    auto *shape = type.mutable_tensor_type()->mutable_shape();
    const bool rankKnown = input.info.type().tensor_type().has_shape();
    if (rankKnown && shape->dim_size() != static_cast<int>(dims.size()))
        return support::makeError("shape-conflict", "freeze-shapes: input '" + input.name + "' has rank " +
                                                        std::to_string(shape->dim_size()) + ", but " +
                                                        std::to_string(dims.size()) + " dims were given");
    if (!rankKnown)
        for (std::size_t k = 0; k < dims.size(); ++k)
            shape->add_dim();
    for (int k = 0; k < shape->dim_size(); ++k) {
        auto *dim = shape->mutable_dim(k);
        const std::int64_t wanted = dims[static_cast<std::size_t>(k)];
        if (dim->has_dim_value() && dim->dim_value() != wanted)
            return support::makeError("shape-conflict", "freeze-shapes: input '" + input.name + "' dim " + std::to_string(k) +
                                                            " is " + std::to_string(dim->dim_value()) + ", not " +
                                                            std::to_string(wanted));
        dim->clear_dim_param();
        dim->set_dim_value(wanted);
    }
    return type;
}

} // namespace

support::Expected<std::map<std::string, std::vector<std::int64_t>>> frozenInputShapes(const ir::Model &model,
                                                                                      const std::string &text)
{
    auto given = parseOption(model, text);
    if (!given)
        return given.error();
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const auto &[input, dims] : *given) {
        if (auto type = frozenType(model.value(input), dims); !type)
            return type.error();
        out[model.value(input).name] = dims;
    }
    return out;
}

support::Status FreezeShapes::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    const std::string &text = cx.options.text("input");
    auto given = parseOption(model, text);
    if (!given)
        return given.error();
    std::vector<std::pair<ir::ValueId, onnx::TypeProto>> frozen;
    for (const auto &[input, dims] : *given) {
        auto type = frozenType(model.value(input), dims);
        if (!type)
            return type.error();
        frozen.emplace_back(input, std::move(*type));
    }
    if (!cx.rewriter.begin("frozen-inputs"))
        return support::Status::ok();
    for (const auto &[input, type] : frozen)
        cx.rewriter.setValueType(input, type);
    // Intermediate shapes may name the old symbols: keep their element types only.
    const ir::Graph &graph = model.graph(model.mainGraph());
    for (const ir::ValueId v : std::vector<ir::ValueId>(graph.valueInfos)) {
        const ir::Value &value = model.value(v);
        if (value.isInitializer() || isGraphOutput(model, v) || !value.info.type().has_tensor_type() || !value.info.type().tensor_type().has_shape())
            continue;
        onnx::TypeProto cleared = value.info.type();
        cleared.mutable_tensor_type()->clear_shape();
        cx.rewriter.setValueType(v, cleared);
        cx.rewriter.count("cleared-shapes");
    }
    cx.rewriter.count("frozen-inputs", static_cast<std::int64_t>(frozen.size()));
    cx.rewriter.commit(text);
    recordInferredTypes(cx, "inferred-type");
    return support::Status::ok();
}

} // namespace portolan::passes
