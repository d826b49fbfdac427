// Subgraph construction for rewrites: the graph, its attribute, its inputs and outputs.
#include "passes/SubgraphBuilder.h"

#include <cassert>

namespace portolan::passes {

ir::GraphId attachSubgraph(ir::Model &model, ir::NodeId node, const std::string &attribute, const std::string &graphName)
{
    const ir::GraphId parent = model.node(node).graph;
    const ir::GraphId sub = model.addGraph(graphName, parent, node, attribute);
    ir::Attribute a;
    a.proto.set_name(attribute);
    a.proto.set_type(onnx::AttributeProto::GRAPH);
    a.subgraphs.push_back(sub);
    a.firstFromG = true;
    model.node(node).attributes.push_back(std::move(a));
    return sub;
}

ir::ValueId addSubgraphInput(Rewriter &rewriter, ir::GraphId graph, const std::string &nameHint, const onnx::TypeProto &type)
{
    const ir::ValueId v = rewriter.createValue(graph, nameHint);
    rewriter.model().graph(graph).inputs.push_back(v);
    if (type.value_case() != onnx::TypeProto::VALUE_NOT_SET)
        rewriter.setValueType(v, type); // declared by the input list: no value_info entry is added
    return v;
}

void addSubgraphOutput(Rewriter &rewriter, ir::GraphId graph, ir::ValueId value, const onnx::TypeProto &type)
{
    assert(rewriter.model().value(value).graph == graph);
    rewriter.model().graph(graph).outputs.push_back(value);
    if (type.value_case() != onnx::TypeProto::VALUE_NOT_SET)
        rewriter.setValueType(value, type);
}

} // namespace portolan::passes
