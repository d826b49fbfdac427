// The IR built from real exported models: ids, scopes, subgraphs with outer-scope reads, external data.
#include "support/TestSupport.h"

#include "analysis/ModelChecker.h"
#include "analysis/ShapeInference.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "ir/NameScopes.h"
#include "ir/Topology.h"

#include <QtTest>

using namespace portolan;

class TestModelLoader : public QObject {
    Q_OBJECT

    static ir::LoadedModel load(const std::string &fixture)
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture + "/model.onnx");
        if (!loaded)
            qFatal("fixture %s failed to load: %s", fixture.c_str(), loaded.error().format().c_str());
        return std::move(loaded).value();
    }

    static int countOps(const ir::Model &model, const std::string &opType)
    {
        int count = 0;
        for (std::size_t i = 0; i < model.nodeCapacity(); ++i) {
            const ir::Node &n = model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
            count += (n.alive && n.opType == opType) ? 1 : 0;
        }
        return count;
    }

private slots:
    void cnnHasUnfoldedBatchNormAndWiring()
    {
        const auto loaded = load("cnn_bn");
        const ir::Model &m = *loaded.model;
        QCOMPARE(countOps(m, "BatchNormalization"), 3);
        const ir::Graph &g = m.graph(m.mainGraph());
        QCOMPARE(g.inputs.size(), std::size_t(1));
        const ir::Value &input = m.value(g.inputs[0]);
        QCOMPARE(input.name, std::string("input"));
        QCOMPARE(input.shape().str(), std::string("[1,3,32,32]"));
        QVERIFY(!input.producer.valid());
        QVERIFY(!input.uses.empty());
        // every use points back at an input slot that holds this value
        for (const ir::Use &use : input.uses)
            QCOMPARE(m.node(use.node).inputs[use.inputIndex], input.id);
        // every node output knows its producer
        for (const ir::NodeId n : g.nodes)
            for (std::size_t k = 0; k < m.node(n).outputs.size(); ++k) {
                const ir::Value &out = m.value(m.node(n).outputs[k]);
                QCOMPARE(out.producer, n);
                QCOMPARE(out.producerOutput, std::uint32_t(k));
            }
        QVERIFY(loaded.warnings.empty());
    }

    void nameScopesFollowExporterNames()
    {
        const auto loaded = load("cnn_bn");
        const auto tree = ir::NameScopeTree::build(*loaded.model, loaded.model->mainGraph());
        QCOMPARE(ir::NameScopeTree::scopeOf("/layer1/conv/Conv"), (std::vector<std::string>{"layer1", "conv"}));
        QCOMPARE(ir::NameScopeTree::scopeOf("Conv_3"), std::vector<std::string>{});
        // the layer a rewrite touched: the deepest scope all its nodes share
        QCOMPARE(ir::NameScopeTree::commonScope({"/layer1/conv/Conv", "/layer1/bn/BatchNormalization", "/layer1/relu/Relu"}),
                 std::string("/layer1"));
        QCOMPARE(ir::NameScopeTree::commonScope({"/enc/layer.3/attn/MatMul", "/enc/layer.3/attn/Softmax"}), std::string("/enc/layer.3/attn"));
        QCOMPARE(ir::NameScopeTree::commonScope({"/layer1/conv/Conv", "/layer2/conv/Conv"}), std::string());
        QCOMPARE(ir::NameScopeTree::commonScope({"/layer1/conv/Conv", "Add_7"}), std::string());
        QCOMPARE(ir::NameScopeTree::commonScope({}), std::string());
        bool foundLayer1 = false;
        for (const std::size_t child : tree.root().children)
            if (tree.pathOf(child) == "/layer1") {
                foundLayer1 = true;
                QVERIFY(tree.group(child).totalNodes >= 3); // conv, bn, relu
            }
        QVERIFY(foundLayer1);
        QCOMPARE(tree.root().totalNodes, loaded.model->graph(loaded.model->mainGraph()).nodes.size());
    }

    void symbolicDimsAreKept()
    {
        const auto loaded = load("transformer_opset14");
        const ir::Model &m = *loaded.model;
        const ir::Value &input = m.value(m.graph(m.mainGraph()).inputs[0]);
        const ir::Shape shape = input.shape();
        QVERIFY(shape.rankKnown());
        QVERIFY((*shape.dims)[1].isSymbolic());
        QCOMPARE((*shape.dims)[1].symbol(), std::string("seq"));
        QVERIFY(!shape.isStatic());
    }

    void subgraphsResolveOuterScopeValues()
    {
        const auto loaded = load("control_flow");
        const ir::Model &m = *loaded.model;
        QVERIFY(countOps(m, "If") >= 1);
        QCOMPARE(countOps(m, "Loop"), 1);
        QVERIFY(m.graphCount() >= 3);

        int maxDepth = 0;
        bool sawCapture = false;
        for (std::size_t gi = 1; gi < m.graphCount(); ++gi) {
            const ir::Graph &sub = m.graph(ir::GraphId(static_cast<std::uint32_t>(gi)));
            maxDepth = std::max(maxDepth, sub.depth);
            QVERIFY(sub.parent.valid());
            QVERIFY(m.node(sub.ownerNode).opType == "If" || m.node(sub.ownerNode).opType == "Loop");
            for (const ir::NodeId n : sub.nodes)
                for (const ir::ValueId in : m.node(n).inputs)
                    if (in.valid() && m.value(in).graph != sub.id)
                        sawCapture = true; // read from an enclosing graph: the same ValueId, not a copy
        }
        QCOMPARE(maxDepth, 2); // If inside the Loop body
        QVERIFY(sawCapture);
        for (std::size_t i = 0; i < m.nodeCapacity(); ++i) {
            const ir::Node &n = m.node(ir::NodeId(static_cast<std::uint32_t>(i)));
            if (n.opType == "Loop")
                QVERIFY(!ir::capturedValues(m, n.id).empty());
        }
    }

    void externalDataIsMappedNotCopied()
    {
        const auto loaded = load("external_data");
        const ir::Model &m = *loaded.model;
        const ir::Graph &g = m.graph(m.mainGraph());
        QCOMPARE(g.initializers.size(), std::size_t(4));
        std::size_t total = 0;
        for (const ir::ValueId v : g.initializers) {
            const ir::Initializer &init = *m.value(v).initializer;
            QVERIFY(init.isExternal());
            QVERIFY(!init.proto.has_raw_data()); // nothing copied into the proto
            const auto file = init.file->bytes();
            QVERIFY(init.external.data() >= file.data());
            QVERIFY(init.external.data() + init.external.size() <= file.data() + file.size());
            total += init.byteSize();
        }
        QCOMPARE(total, std::size_t(6432)); // the size of weights.bin
    }

    void checksSeeLargeWeightsAsShapesOnly()
    {
        // A 128 KiB weight and a Reshape's int64 shape: the checker and shape inference get the weight
        // as type and dims only, the shape with its values, and still type the output from both
        onnx::ModelProto proto = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[1,128] x) => (float[a,b] y) { h = MatMul(x, W)  y = Reshape(h, shape) })");
        onnx::TensorProto *w = proto.mutable_graph()->add_initializer();
        w->set_name("W");
        w->set_data_type(onnx::TensorProto::FLOAT);
        w->add_dims(128);
        w->add_dims(256);
        w->set_raw_data(std::string(128 * 256 * sizeof(float), '\0'));
        onnx::TensorProto *shape = proto.mutable_graph()->add_initializer();
        shape->set_name("shape");
        shape->set_data_type(onnx::TensorProto::INT64);
        shape->add_dims(2);
        shape->add_int64_data(2);
        shape->add_int64_data(128);
        auto loaded = ir::loadModelProto(std::move(proto), "shapes-only", ".");
        QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
        const onnx::ModelProto light = ir::toModelProto(*loaded->model, ir::Payloads::ShapesOnly);
        QCOMPARE(light.graph().initializer_size(), 2);
        QVERIFY(ir::payloadLeftOut(light.graph().initializer(0)));
        QCOMPARE(light.graph().initializer(0).dims_size(), 2);
        QVERIFY(!ir::payloadLeftOut(light.graph().initializer(1)));
        QCOMPARE(light.graph().initializer(1).int64_data_size(), 2);
        QCOMPARE(ir::toModelProto(*loaded->model).graph().initializer(0).raw_data().size(), std::size_t(128 * 256 * 4));

        const auto inferred = analysis::inferShapes(*loaded->model);
        QVERIFY2(inferred.findings.empty(), inferred.findings.empty() ? "" : inferred.findings.front().message.c_str());
        QCOMPARE(analysis::staticDims(inferred.types.at("h")), std::optional(std::vector<std::int64_t>{1, 256}));
        QCOMPARE(analysis::staticDims(inferred.types.at("y")), std::optional(std::vector<std::int64_t>{2, 128}));
        QCOMPARE(analysis::checkModel(*loaded->model).size(), std::size_t(0));
    }

    void topologicalOrderIsStableAndComplete()
    {
        const auto loaded = load("transformer_opset17");
        const ir::Model &m = *loaded.model;
        auto order = ir::topologicalOrder(m, m.mainGraph());
        QVERIFY(order.hasValue());
        QCOMPARE(order->size(), m.graph(m.mainGraph()).nodes.size());
        QCOMPARE(*order, m.graph(m.mainGraph()).nodes); // exporter output is sorted: order kept
    }

    void unsortedNodesStillLoad()
    {
        // b is consumed before the node producing it appears in the file
        auto loaded = test::loadModelText(R"(
            <ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) {
                z = Relu(b)
                b = Neg(x)
            })");
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        const ir::Model &m = *loaded->model;
        auto order = ir::topologicalOrder(m, m.mainGraph());
        QVERIFY(order.hasValue());
        QCOMPARE(m.node((*order)[0]).opType, std::string("Neg"));
    }

    void syntheticHundredThousandNodes()
    {
        const std::string bytes = test::canonicalBytes(test::syntheticModel(1000, 100));
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", {});
        QVERIFY(loaded.hasValue());
        QCOMPARE(loaded->model->liveNodeCount(), std::size_t(100000));
        const auto tree = ir::NameScopeTree::build(*loaded->model, loaded->model->mainGraph());
        QCOMPARE(tree.root().children.size(), std::size_t(1));      // /encoder
        QCOMPARE(tree.group(tree.root().children[0]).children.size(), std::size_t(1000)); // layers
    }
};

QTEST_GUILESS_MAIN(TestModelLoader)
#include "tst_ModelLoader.moc"
