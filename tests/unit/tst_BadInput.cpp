// Hostile and broken models: each gives one clear error naming what and where, never a crash.
#include "support/TestSupport.h"

#include "analysis/ModelChecker.h"
#include "ir/ModelLoader.h"

#include <QtTest>

#include "ir/NameScopes.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace portolan;

namespace {

std::string bytesOf(const google::protobuf::Message &m) { return test::canonicalBytes(m); }

support::Expected<ir::LoadedModel> loadBytes(const std::string &bytes, const std::string &baseDir = {})
{
    return ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "bad.onnx", baseDir);
}

// Protobuf wire format by hand, so nesting can go deeper than protobuf's own serializer recurses.
void appendVarint(std::string &out, std::uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}
void appendField(std::string &out, int field, const std::string &payload)
{
    appendVarint(out, (static_cast<std::uint64_t>(field) << 3) | 2);
    appendVarint(out, payload.size());
    out += payload;
}
void appendVarintField(std::string &out, int field, std::uint64_t v)
{
    appendVarint(out, static_cast<std::uint64_t>(field) << 3);
    appendVarint(out, v);
}

// A model whose graph holds an If whose then_branch holds an If … `depth` levels deep.
std::string nestedModel(int depth)
{
    std::string graph; // innermost: empty graph
    for (int level = 0; level < depth; ++level) {
        std::string attribute;
        appendField(attribute, 1, "then_branch"); // name
        appendField(attribute, 6, graph);         // g
        appendVarintField(attribute, 20, 5);      // type = GRAPH
        std::string node;
        appendField(node, 1, "cond");  // input
        appendField(node, 4, "If");    // op_type
        appendField(node, 5, attribute);
        std::string outer;
        appendField(outer, 1, node);
        graph = outer;
    }
    std::string input; // graph input "cond"
    appendField(input, 1, "cond");
    appendField(graph, 11, input);
    std::string opset;
    appendVarintField(opset, 2, 13);
    std::string model;
    appendVarintField(model, 1, 8); // ir_version
    appendField(model, 7, graph);
    appendField(model, 8, opset);
    return model;
}

onnx::ModelProto modelWithInitializer(const std::vector<std::int64_t> &dims, int floats)
{
    onnx::ModelProto m = test::parseModelText(R"(
        <ir_version: 8, opset_import: ["" : 17]>
        g (float[2] x) => (float[2] y) { y = Identity(x) })");
    onnx::TensorProto *t = m.mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (const auto d : dims)
        t->add_dims(d);
    for (int i = 0; i < floats; ++i)
        t->add_float_data(1.0f);
    return m;
}

onnx::ModelProto modelWithExternal(const std::string &location, const std::string &offset, const std::string &length)
{
    onnx::ModelProto m = modelWithInitializer({4}, 0);
    onnx::TensorProto *t = m.mutable_graph()->mutable_initializer(0);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [t](const char *key, const std::string &value) {
        if (value.empty())
            return;
        auto *e = t->add_external_data();
        e->set_key(key);
        e->set_value(value);
    };
    add("location", location);
    add("offset", offset);
    add("length", length);
    return m;
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT

    static void expectError(const support::Expected<ir::LoadedModel> &loaded, const std::string &code,
                            const std::string &fragment)
    {
        QVERIFY2(!loaded.hasValue(), "the bad model loaded");
        const support::Diagnostic &d = loaded.error().primary;
        QVERIFY2(d.code == code, ("code was " + d.code + ": " + d.format()).c_str());
        QVERIFY2(d.format().find(fragment) != std::string::npos, ("message was: " + d.format()).c_str());
    }

    QTemporaryDir m_dir;

    std::string writeFile(const std::string &name, const std::string &bytes)
    {
        const std::string path = m_dir.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }

private slots:
    void unreadableFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("empty") << QByteArray() << "not-a-model" << "empty";
        std::string cnn;
        {
            std::ifstream in(test::fixturesDir() + "/cnn_bn/model.onnx", std::ios::binary);
            cnn.assign(std::istreambuf_iterator<char>(in), {});
        }
        QTest::newRow("truncated") << QByteArray::fromStdString(cnn.substr(0, cnn.size() / 2)) << "not-a-model"
                                   << "is truncated";
        std::mt19937 rng(7);
        std::string noise(4096, '\0');
        for (char &c : noise)
            c = static_cast<char>(rng() & 0xff);
        QTest::newRow("random bytes") << QByteArray::fromStdString(noise) << "not-a-model" << "cannot parse as an ONNX model";
        onnx::GraphProto graph; // its fields parse as a ModelProto's, but it is no model
        graph.set_name("g");
        graph.set_doc_string("a graph on its own");
        QTest::newRow("a GraphProto, not a model") << QByteArray::fromStdString(bytesOf(graph)) << "not-a-model"
                                                   << "no graph";
        QTest::newRow("nested 10000 deep") << QByteArray::fromStdString(nestedModel(10000)) << "not-a-model"
                                           << "subgraphs nest more than 64 levels";
        onnx::TensorProto tensor;
        tensor.set_name("x");
        tensor.set_data_type(onnx::TensorProto::FLOAT);
        tensor.add_dims(2);
        tensor.set_raw_data(std::string(8, '\0'));
        QTest::newRow("a tensor file") << QByteArray::fromStdString(bytesOf(tensor)) << "not-a-model" << "is a TensorProto";
        QTest::newRow("nested 80 deep") << QByteArray::fromStdString(nestedModel(80)) << "nesting-too-deep"
                                        << "limit of 64 levels";
    }

    void unreadableFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, code);
        QFETCH(QString, fragment);
        const std::string path = writeFile("model.onnx", bytes.toStdString());
        expectError(ir::loadModelFile(path), code.toStdString(), fragment.toStdString());
    }

    void fifoDoesNotHang()
    {
        const std::string path = m_dir.filePath("fifo.onnx").toStdString();
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
        expectError(ir::loadModelFile(path), "not-a-file", "not a regular file");
    }

    void deepScopeNamesCostLinearMemory()
    {
        onnx::ModelProto m = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] y) { y = Relu(x) })");
        std::string name;
        for (int i = 0; i < 100000; ++i)
            name += "a/";
        m.mutable_graph()->mutable_node(0)->set_name(name + "Relu");
        auto loaded = loadBytes(bytesOf(m));
        QVERIFY(loaded.hasValue());
        const auto tree = ir::NameScopeTree::build(*loaded->model, loaded->model->mainGraph());
        QCOMPARE(tree.groupCount(), ir::NameScopeTree::kMaxDepth + 1); // folded at the depth cap
    }

    void valueInfoIsNoDefinition()
    {
        onnx::ModelProto m = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] y) { z = Relu(x) })");
        m.mutable_graph()->add_value_info()->set_name("y"); // names the output, defines nothing
        expectError(loadBytes(bytesOf(m)), "missing-producer", "value 'y'");
    }

    void missingFile()
    {
        expectError(ir::loadModelFile("/nonexistent/model.onnx"), "cannot-open", "/nonexistent/model.onnx");
    }

    void brokenGraphs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("cycle") << R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { a = Add(x, c)  b = Relu(a)  c = Neg(b)  z = Identity(b) })"
                               << "cycle" << "cycle";
        QTest::newRow("dangling read") << R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { z = Add(x, ghost) })"
                                       << "missing-producer" << "input 'ghost' is not produced";
        QTest::newRow("duplicate output") << R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { z = Relu(x)  z = Neg(x) })"
                                          << "duplicate-definition" << "already defined by node";
        QTest::newRow("output shadows input") << R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] x2) { x = Relu(x)  x2 = Neg(x) })"
                                              << "duplicate-definition" << "an input or initializer";
        QTest::newRow("graph output nobody makes") << R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] nothing) { z = Relu(x) })"
                                                   << "missing-producer" << "value 'nothing'";
    }

    void brokenGraphs()
    {
        QFETCH(QString, text);
        QFETCH(QString, code);
        QFETCH(QString, fragment);
        const std::string source = text.toStdString();
        expectError(test::loadModelText(source.c_str()), code.toStdString(), fragment.toStdString());
    }

    void cycleNamesItsNodes()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { a = Add(x, c)  b = Relu(a)  c = Neg(b)  z = Identity(b) })");
        QVERIFY(!loaded.hasValue());
        const std::string message = loaded.error().primary.message;
        for (const char *op : {"Add", "Relu", "Neg"})
            QVERIFY2(message.find(op) != std::string::npos, message.c_str());
        QVERIFY2(message.find("Identity") == std::string::npos, message.c_str()); // downstream, not on the cycle
    }

    void badTensors_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("negative dim") << QByteArray::fromStdString(bytesOf(modelWithInitializer({2, -3}, 0)))
                                      << "negative-dim" << "value 'w'";
        QTest::newRow("absurd dims, four floats") << QByteArray::fromStdString(bytesOf(modelWithInitializer({100000, 100000}, 4)))
                                                  << "data-size-mismatch" << "declares 10000000000 elements but holds 4";
        QTest::newRow("dims overflow") << QByteArray::fromStdString(bytesOf(modelWithInitializer({1LL << 40, 1LL << 40}, 0)))
                                       << "dims-overflow" << "overflow";
    }

    void badTensors()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, code);
        QFETCH(QString, fragment);
        expectError(loadBytes(bytes.toStdString()), code.toStdString(), fragment.toStdString());
    }

    void externalData_data()
    {
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("offset");
        QTest::addColumn<QString>("length");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("parent dir") << "../weights.bin" << "0" << "16" << "external-path-escapes" << "'..'";
        QTest::newRow("absolute") << "/etc/passwd" << "0" << "16" << "external-path-escapes" << "not a relative path";
        QTest::newRow("symlink out") << "link.bin" << "0" << "16" << "external-path-escapes" << "through a link";
        QTest::newRow("length past end") << "weights.bin" << "8" << "16" << "external-out-of-range" << "runs past the end";
        QTest::newRow("offset past end") << "weights.bin" << "4096" << "16" << "external-out-of-range" << "past the end";
        QTest::newRow("wrong size") << "weights.bin" << "0" << "8" << "data-size-mismatch" << "need 16";
        QTest::newRow("missing file") << "absent.bin" << "0" << "16" << "external-missing" << "does not exist";
        QTest::newRow("bad offset") << "weights.bin" << "-1" << "16" << "external-bad-offset" << "not a number";
    }

    void externalData()
    {
        QFETCH(QString, location);
        QFETCH(QString, offset);
        QFETCH(QString, length);
        QFETCH(QString, code);
        QFETCH(QString, fragment);
        QTemporaryDir outer;
        const std::string modelDir = outer.filePath("model").toStdString();
        std::filesystem::create_directory(modelDir);
        std::ofstream(modelDir + "/weights.bin", std::ios::binary) << std::string(16, '\1');
        std::ofstream(outer.filePath("weights.bin").toStdString(), std::ios::binary) << std::string(16, '\1');
        std::filesystem::create_symlink(outer.filePath("weights.bin").toStdString(), modelDir + "/link.bin");

        const auto model = modelWithExternal(location.toStdString(), offset.toStdString(), length.toStdString());
        const std::string path = modelDir + "/model.onnx";
        std::ofstream(path, std::ios::binary) << bytesOf(model);
        expectError(ir::loadModelFile(path), code.toStdString(), fragment.toStdString());
    }

    void externalDataInsideFolderLoads()
    {
        QTemporaryDir dir;
        std::ofstream(dir.filePath("weights.bin").toStdString(), std::ios::binary) << std::string(16, '\1');
        const std::string path = dir.filePath("model.onnx").toStdString();
        std::ofstream(path, std::ios::binary) << bytesOf(modelWithExternal("weights.bin", "0", "16"));
        QVERIFY(ir::loadModelFile(path).hasValue());
    }

    void checkerFindingsNameTheNode()
    {
        // loads (structure is fine) but the checker objects: unknown domain, unknown op, negative declared dim
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[-2] x) => (float[2] z) {
                a = com.nowhere.Mystery(x)
                z = NoSuchOp(a)
            })");
        QVERIFY(loaded.hasValue());
        const auto findings = analysis::checkModel(*loaded->model);
        QVERIFY(support::hasErrors(findings));
        bool domain = false, unknownOp = false, negative = false;
        for (const auto &d : findings) {
            domain |= d.format().find("com.nowhere") != std::string::npos;
            unknownOp |= d.format().find("NoSuchOp") != std::string::npos && !d.node.empty();
            negative |= d.code == "negative-dim" && d.value == "x";
        }
        QVERIFY(domain);
        QVERIFY(unknownOp);
        QVERIFY(negative);
    }

    void validModelHasNoFindings()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
        QVERIFY(loaded.hasValue());
        const auto findings = analysis::checkModel(*loaded->model);
        QVERIFY2(findings.empty(), findings.empty() ? "" : findings.front().format().c_str());
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_BadInput.moc"
