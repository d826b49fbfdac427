// convert-opset: convert the model to another standard opset with ONNX's version converter.
//
//   Before (opset 12): x → Squeeze(axes = [0]) → y          (axes as an attribute)
//   After  (opset 13): x, [0] → Squeeze → y                 (axes as an input; a Constant feeds it)
//
// The converter works on protos: the main graph's nodes are exported with marker names, converted
// (onnx::version_conversion::ConvertVersion), and the result is diffed against the IR, so that
// what the converter kept keeps its identity:
//   - a converted node with a marker name, the same op, domain and outputs is the original node,
//     edited in place (inputs and attributes set to the converted ones): its id, name and
//     provenance stay. Most adapters work this way (attribute↔input moves, attribute defaults).
//   - any other converted node is new (an adapter inserted it, or replaced a node by another op:
//     Upsample → Resize). Its outputs are new values that take over the uses (and graph-output
//     names) of the values they replace. Original nodes without a kept counterpart are erased.
//   - the whole conversion is one rewrite: a new node stands for every original node the
//     conversion erased (the converter does not say which node an adapter's output replaces, so
//     this is the sound over-approximation), or, when none was erased, for the kept nodes that
//     read it (an inserted Constant stands for the node it feeds).
// Initializers are kept as they are (the converter's copies are not read back; an adapter's new
// initializer is added). Subgraphs are left as they are when the converter returns them unchanged
// (nodes inside them run at the model's opset); a conversion that would change a subgraph, or
// erase or create a node with subgraphs, is refused with an error, as the rewriter does not build
// subgraphs. Converter failures are errors naming the source and target opsets and the node.
#include "passes/Match.h"
#include "passes/Pass.h"

#include "ir/ModelSaver.h"
#include "opset/OpVersions.h"
#include "runtime/TensorProtoIO.h"

#include <onnx/defs/schema.h>
#include <onnx/version_converter/convert.h>

#include <map>
#include <regex>
#include <set>
#include <unordered_map>

namespace portolan::passes {

namespace {

const std::string kMarker = "portolan-convert#";

std::optional<std::size_t> markerIndex(const std::string &name)
{
    if (name.rfind(kMarker, 0) != 0)
        return std::nullopt;
    return std::stoul(name.substr(kMarker.size()));
}

/// The converter's message with marker names replaced by the nodes' display names.
std::string readable(const std::string &message, const ir::Model &model, const std::vector<ir::NodeId> &nodes)
{
    static const std::regex marker("portolan-convert#([0-9]+)");
    std::string out;
    std::sregex_iterator it(message.begin(), message.end(), marker), end;
    std::size_t last = 0;
    for (; it != end; ++it) {
        const std::size_t i = std::stoul((*it)[1].str());
        out += message.substr(last, static_cast<std::size_t>(it->position()) - last);
        out += i < nodes.size() ? "'" + model.node(nodes[i]).displayName(i) + "'" : it->str();
        last = static_cast<std::size_t>(it->position() + it->length());
    }
    return out + message.substr(last);
}

std::map<std::string, std::string> attributeBytes(const onnx::NodeProto &node)
{
    std::map<std::string, std::string> out;
    for (const auto &a : node.attribute())
        out[a.name()] = ir::serializeDeterministic(a);
    return out;
}

bool hasGraphAttribute(const onnx::NodeProto &node)
{
    for (const auto &a : node.attribute())
        if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS)
            return true;
    return false;
}

bool sameOutputs(const onnx::NodeProto &a, const onnx::NodeProto &b)
{
    return a.op_type() == b.op_type() && a.domain() == b.domain() && a.output_size() == b.output_size() &&
           std::equal(a.output().begin(), a.output().end(), b.output().begin());
}

support::Error conversionError(int from, int to, const std::string &why)
{
    return support::makeError("conversion-failed", "convert-opset: cannot convert from opset " + std::to_string(from) +
                                                       " to " + std::to_string(to) + ": " + why);
}

} // namespace

support::Status ConvertOpset::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    auto target = cx.options.integer("target");
    if (!target)
        return target.error();
    const int from = standardOpset(model);
    // libonnx 1.12's converter has adapters up to opset 17; the registry knows later opsets (Portolan's
    // own schemas) but no adapter reaches them.
    if (*target < 1 || *target > opset::kLibOnnxStandardOpset)
        return support::makeError("bad-option", "convert-opset: option 'target' (" + std::to_string(*target) +
                                                    ") is not an opset the converter reaches (1–" +
                                                    std::to_string(opset::kLibOnnxStandardOpset) + ")");
    const int to = static_cast<int>(*target);
    if (from == 0)
        return conversionError(from, to, "the model imports no standard opset");
    if (from == to)
        return support::Status::ok();

    const ir::GraphId main = model.mainGraph();
    const std::vector<ir::NodeId> nodes = liveNodes(model, main);
    onnx::ModelProto proto = ir::toModelProto(model);
    auto *protoNodes = proto.mutable_graph()->mutable_node();
    if (static_cast<std::size_t>(protoNodes->size()) != nodes.size())
        return conversionError(from, to, "the exported graph does not match the IR");
    for (int i = 0; i < protoNodes->size(); ++i)
        protoNodes->Mutable(i)->set_name(kMarker + std::to_string(i));
    onnx::ModelProto converted;
    try {
        converted = onnx::version_conversion::ConvertVersion(proto, to);
    } catch (const std::exception &e) {
        return conversionError(from, to, readable(e.what(), model, nodes));
    }
    const onnx::GraphProto &out = converted.graph();

    // ---- match: which converted node is which original node ----
    std::vector<int> keptAs(nodes.size(), -1); // original index → converted index
    std::vector<int> created;                  // converted indices of new nodes
    for (int j = 0; j < out.node_size(); ++j) {
        const auto i = markerIndex(out.node(j).name());
        if (i && *i < nodes.size() && keptAs[*i] < 0 && sameOutputs(out.node(j), protoNodes->Get(static_cast<int>(*i))))
            keptAs[*i] = j;
        else
            created.push_back(j);
    }
    std::vector<ir::NodeId> erased;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const onnx::NodeProto &original = protoNodes->Get(static_cast<int>(i));
        if (keptAs[i] < 0) {
            erased.push_back(nodes[i]);
            if (hasGraphAttribute(original))
                return conversionError(from, to, "node '" + model.node(nodes[i]).displayName(i) +
                                                     "' with subgraphs would be replaced (not supported)");
            continue;
        }
        const onnx::NodeProto &now = out.node(keptAs[i]);
        for (const auto &a : now.attribute())
            if ((a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) &&
                attributeBytes(original)[a.name()] != ir::serializeDeterministic(a))
                return conversionError(from, to, "the converter changes subgraph '" + a.name() + "' of node '" +
                                                     model.node(nodes[i]).displayName(i) + "' (not supported)");
    }
    for (const int j : created)
        if (hasGraphAttribute(out.node(j)))
            return conversionError(from, to, "the converter creates a " + out.node(j).op_type() + " node with subgraphs (not supported)");

    // ---- resolve every name the converted graph reads, before touching anything ----
    const ir::Graph &graph = model.graph(main);
    std::set<std::string> producedByNew;
    for (const int j : created)
        for (const auto &name : out.node(j).output())
            if (!name.empty())
                producedByNew.insert(name);
    std::set<ir::NodeId> erasedSet(erased.begin(), erased.end());
    for (const std::string &name : producedByNew)
        if (auto it = graph.scope.find(name); it != graph.scope.end()) {
            const ir::NodeId p = model.value(it->second).producer;
            if (!p.valid() || !erasedSet.contains(p))
                return conversionError(from, to, "a new node redefines '" + name + "'");
        }
    // Graph outputs the converter renamed (a replaced node's output): the new value takes the old name.
    std::vector<std::pair<std::string, std::string>> renamedOutputs;
    if (out.output_size() != static_cast<int>(graph.outputs.size()))
        return conversionError(from, to, "the converter changed the graph outputs");
    for (int k = 0; k < out.output_size(); ++k)
        if (out.output(k).name() != model.value(graph.outputs[static_cast<std::size_t>(k)]).name)
            renamedOutputs.emplace_back(model.value(graph.outputs[static_cast<std::size_t>(k)]).name, out.output(k).name());
    std::vector<const onnx::TensorProto *> newInitializers;
    for (const auto &t : out.initializer())
        if (!graph.scope.contains(t.name()) && !producedByNew.contains(t.name()))
            newInitializers.push_back(&t);
    std::set<std::string> known(producedByNew);
    for (const auto *t : newInitializers)
        known.insert(t->name());
    for (const auto &n : out.node())
        for (const auto &name : n.input())
            if (!name.empty() && !known.contains(name) && !model.lookup(main, name))
                return conversionError(from, to, "converted node " + n.op_type() + " reads unknown value '" + name + "'");
    std::unordered_map<std::string, const onnx::TypeProto *> types;
    for (const auto &info : out.value_info())
        if (info.has_type())
            types[info.name()] = &info.type();
    std::vector<std::unique_ptr<runtime::Tensor>> tensors;
    for (const auto *t : newInitializers) {
        auto tensor = runtime::tensorFromProto(*t);
        if (!tensor)
            return conversionError(from, to, "cannot read the converter's initializer '" + t->name() + "'");
        tensors.push_back(std::make_unique<runtime::Tensor>(std::move(*tensor)));
    }

    // ---- rebuild, as one rewrite ----
    if (!cx.rewriter.begin("convert-opset"))
        return support::Status::ok();
    std::unordered_map<std::string, ir::ValueId> fresh; // names defined by this conversion
    for (std::size_t k = 0; k < newInitializers.size(); ++k)
        fresh[newInitializers[k]->name()] = cx.rewriter.createInitializer(main, newInitializers[k]->name(), *tensors[k]);
    std::vector<std::pair<ir::ValueId, ir::ValueId>> redirects; // old value → its new producer's value
    for (const std::string &name : producedByNew) {
        const auto old = model.lookup(main, name);
        const onnx::TypeProto *type = types.contains(name) ? types[name]
                                      : old && model.value(*old).info.has_type() ? &model.value(*old).info.type()
                                                                                  : nullptr;
        const onnx::TypeProto typeCopy = type ? *type : onnx::TypeProto();
        fresh[name] = cx.rewriter.createValue(main, name, type ? &typeCopy : nullptr);
        if (old)
            redirects.emplace_back(*old, fresh[name]);
    }
    auto resolve = [&](const std::string &name) {
        if (name.empty())
            return ir::ValueId();
        const auto it = fresh.find(name);
        return it != fresh.end() ? it->second : *model.lookup(main, name);
    };
    std::unordered_map<std::string, ir::NodeId> keptReaders; // a value name → a kept node reading it
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (keptAs[i] >= 0)
            for (const auto &name : out.node(keptAs[i]).input())
                keptReaders.emplace(name, nodes[i]);
    for (const int j : created) {
        const onnx::NodeProto &n = out.node(j);
        std::vector<ir::ValueId> inputs, outputs;
        for (const auto &name : n.input())
            inputs.push_back(resolve(name));
        std::vector<ir::NodeId> standsFor;
        for (const auto &name : n.output()) {
            outputs.push_back(resolve(name));
            if (erased.empty() && keptReaders.contains(name))
                standsFor.push_back(keptReaders[name]);
        }
        std::vector<onnx::AttributeProto> attributes(n.attribute().begin(), n.attribute().end());
        const std::string hint = markerIndex(n.name()) ? std::string() : n.name();
        cx.rewriter.createNode(main, n.op_type(), n.domain(), inputs, outputs, std::move(attributes), hint, {},
                               std::move(standsFor));
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (keptAs[i] < 0)
            continue;
        const ir::NodeId id = nodes[i];
        const onnx::NodeProto &n = out.node(keptAs[i]);
        const std::size_t count = static_cast<std::size_t>(n.input_size());
        for (std::size_t k = std::max(count, model.node(id).inputs.size()); k-- > 0;) {
            const ir::ValueId wanted = k < count ? resolve(n.input(static_cast<int>(k))) : ir::ValueId();
            if (k >= model.node(id).inputs.size() || model.node(id).inputs[k] != wanted)
                cx.rewriter.setInput(id, k, wanted);
        }
        std::map<std::string, std::string> before = attributeBytes(protoNodes->Get(static_cast<int>(i)));
        for (const auto &a : n.attribute())
            if (a.type() != onnx::AttributeProto::GRAPH && a.type() != onnx::AttributeProto::GRAPHS &&
                before[a.name()] != ir::serializeDeterministic(a))
                cx.rewriter.setAttribute(id, a);
        for (const auto &[name, bytes] : attributeBytes(protoNodes->Get(static_cast<int>(i))))
            if (!attributeBytes(n).contains(name))
                cx.rewriter.removeAttribute(id, name);
        cx.rewriter.absorb(id, {}); // re-versioned: the node now means its op at the new opset
    }
    for (const auto &[name, now] : renamedOutputs)
        redirects.emplace_back(*model.lookup(main, name), resolve(now));
    for (const auto &[old, replacement] : redirects) {
        std::string why;
        if (!cx.rewriter.canReplace(old, replacement, &why)) {
            cx.rewriter.commit("incomplete");
            return conversionError(from, to, why);
        }
        cx.rewriter.replaceAllUsesWith(old, replacement);
    }
    // Erase the replaced originals, consumers first (a value may still be read by another erased node).
    for (bool progress = true; progress;) {
        progress = false;
        for (const ir::NodeId n : erased) {
            const ir::Node &node = model.node(n);
            bool used = false;
            for (const ir::ValueId v : node.outputs)
                used = used || (v.valid() && (!model.value(v).uses.empty() || isGraphOutput(model, v)));
            if (node.alive && !used) {
                cx.rewriter.eraseNode(n);
                progress = true;
            }
        }
    }
    for (auto &opset : *model.header.mutable_opset_import())
        if (opset.domain().empty() || opset.domain() == "ai.onnx")
            opset.set_version(to);
    cx.rewriter.count("kept-nodes", static_cast<std::int64_t>(nodes.size() - erased.size()));
    cx.rewriter.count("created-nodes", static_cast<std::int64_t>(created.size()));
    cx.rewriter.count("erased-nodes", static_cast<std::int64_t>(erased.size()));
    cx.rewriter.commit("opset " + std::to_string(from) + " → " + std::to_string(to));
    for (const ir::NodeId n : erased)
        if (model.node(n).alive)
            return conversionError(from, to, "node '" + model.node(n).name + "' is still read after the conversion");
    return support::Status::ok();
}

} // namespace portolan::passes
