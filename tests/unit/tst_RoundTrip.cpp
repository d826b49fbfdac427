// load → save reproduces the file's protobuf exactly (canonical bytes), on the fixtures and on every
// model of ONNX's backend test suite; save → load → save is a fixed point.
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "support/MappedFile.h"

#include <QtTest>

using namespace portolan;

class TestRoundTrip : public QObject {
    Q_OBJECT

    static void addRow(const std::string &path)
    {
        QTest::newRow(path.c_str()) << QString::fromStdString(path);
    }

private slots:
    void lossless_data()
    {
        QTest::addColumn<QString>("path");
        for (const std::string &name : test::fixtureNames())
            addRow(test::fixturesDir() + "/" + name + "/model.onnx");
        const auto models = test::onnxTestDataModels();
        if (models.empty())
            qWarning("libonnx-testdata is not installed: only the fixtures are round-tripped");
        for (const std::string &path : models)
            addRow(path);
    }

    void lossless()
    {
        QFETCH(QString, path);
        const std::string file = path.toStdString();
        auto mapped = support::MappedFile::open(file);
        QVERIFY(mapped.hasValue());
        onnx::ModelProto original;
        QVERIFY(original.ParseFromArray((*mapped)->bytes().data(), static_cast<int>((*mapped)->size())));
        const std::string expected = test::canonicalBytes(original);

        auto loaded = ir::loadModelFile(file);
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        const std::string saved = ir::serializeModel(*loaded->model);
        QCOMPARE(saved.size(), expected.size());
        QVERIFY(saved == expected);

        const std::string dir = loaded->model->baseDir;
        auto reloaded = ir::loadModelBytes(std::as_bytes(std::span(saved.data(), saved.size())), file, dir);
        QVERIFY(reloaded.hasValue());
        QVERIFY(ir::serializeModel(*reloaded->model) == saved);
    }

    // Fields a newer ONNX (or a vendor) adds are unknown to us; they must survive load → save.
    void unknownFieldsSurvive()
    {
        onnx::ModelProto proto = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { y = Relu(x)  z = Neg(y) })");
        proto.mutable_unknown_fields()->AddVarint(990, 1);
        proto.mutable_graph()->mutable_unknown_fields()->AddLengthDelimited(991, "graph-extra");
        proto.mutable_graph()->mutable_node(1)->mutable_unknown_fields()->AddVarint(992, 7);
        proto.mutable_graph()->mutable_input(0)->mutable_unknown_fields()->AddFixed32(993, 5);
        proto.mutable_graph()->mutable_node(0)->add_attribute()->set_name("vendor_hint");
        proto.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
        proto.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_unknown_fields()->AddVarint(994, 3);
        const std::string bytes = test::canonicalBytes(proto);
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "unknown", {});
        QVERIFY(loaded.hasValue());
        const std::string saved = ir::serializeModel(*loaded->model);
        QVERIFY(saved == bytes);
        onnx::ModelProto reread;
        QVERIFY(reread.ParseFromString(saved));
        QCOMPARE(reread.graph().node(1).unknown_fields().field_count(), 1);
        QCOMPARE(reread.graph().node(1).unknown_fields().field(0).number(), 992);
    }

    // Names declared more than once, differently; attributes with both g and graphs; sparse initializers.
    void awkwardButValidFilesSurvive_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        auto base = [] {
            return test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
                g (float[2] x) => (float[2] y) { y = Relu(x) })");
        };
        {
            onnx::ModelProto m = base();
            m.mutable_graph()->mutable_input(0)->set_doc_string("as an input");
            *m.mutable_graph()->add_output() = m.graph().input(0);
            m.mutable_graph()->mutable_output(1)->set_doc_string("as an output");
            QTest::newRow("input also an output, other doc") << QByteArray::fromStdString(test::canonicalBytes(m));
        }
        {
            onnx::ModelProto m = base();
            onnx::ValueInfoProto *vi = m.mutable_graph()->add_value_info();
            vi->set_name("x");
            vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::DOUBLE);
            *m.mutable_graph()->add_value_info() = *vi;
            m.mutable_graph()->mutable_value_info(1)->set_doc_string("second");
            QTest::newRow("conflicting and repeated value_info") << QByteArray::fromStdString(test::canonicalBytes(m));
        }
        {
            onnx::ModelProto m = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
                g (bool c, float[2] x) => (float[2] y) {
                    y = If(c) <then_branch = t () => (float[2] a) { a = Neg(x) },
                               else_branch = e () => (float[2] b) { b = Relu(x) }>
                })");
            auto *attr = m.mutable_graph()->mutable_node(0)->mutable_attribute(0);
            *attr->add_graphs() = attr->g(); // both g and graphs set: invalid, but must round-trip
            QTest::newRow("attribute with g and graphs") << QByteArray::fromStdString(test::canonicalBytes(m));
        }
        {
            onnx::ModelProto m = base();
            auto *sparse = m.mutable_graph()->add_sparse_initializer();
            sparse->add_dims(4);
            sparse->mutable_values()->set_name("s");
            sparse->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
            sparse->mutable_values()->add_dims(1);
            sparse->mutable_values()->add_float_data(2.0f);
            sparse->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
            sparse->mutable_indices()->add_dims(1);
            sparse->mutable_indices()->add_int64_data(3);
            QTest::newRow("sparse initializer") << QByteArray::fromStdString(test::canonicalBytes(m));
        }
    }

    void awkwardButValidFilesSurvive()
    {
        QFETCH(QByteArray, bytes);
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.constData(), static_cast<std::size_t>(bytes.size()))),
                                         "awkward", {});
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        QVERIFY(ir::serializeModel(*loaded->model) == bytes.toStdString());
    }

    void saveRefusesToOverwrite()
    {
        QTemporaryDir dir;
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
        QVERIFY(loaded.hasValue());
        const std::string out = dir.filePath("out.onnx").toStdString();
        QVERIFY(ir::saveModelFile(*loaded->model, out).isOk());
        const auto again = ir::saveModelFile(*loaded->model, out);
        QVERIFY(!again.isOk());
        QCOMPARE(again.error().primary.code, std::string("file-exists"));
        QVERIFY(ir::saveModelFile(*loaded->model, out, ir::Overwrite::Allow).isOk());
        auto reread = ir::loadModelFile(out);
        QVERIFY(reread.hasValue());
        QCOMPARE(reread->model->liveNodeCount(), loaded->model->liveNodeCount());
    }

    void savedModelsCarryTheirOwnExternalData()
    {
        // the fixture keeps its weights in weights.bin beside it: a copy saved elsewhere must open on
        // its own, and must not read the source's data file (re-exporting the source would change it)
        QTemporaryDir dir;
        const std::string source = test::fixturesDir() + "/external_data/model.onnx";
        auto loaded = ir::loadModelFile(source);
        QVERIFY(loaded.hasValue());
        QVERIFY(QDir(dir.path()).mkpath("elsewhere"));
        const std::string out = dir.filePath("elsewhere/copy.onnx").toStdString();
        QVERIFY(ir::saveModelFile(*loaded->model, out).isOk());
        QVERIFY(QFileInfo::exists(QString::fromStdString(out + ".data")));

        auto reread = ir::loadModelFile(out);
        QVERIFY2(reread.hasValue(), reread.hasValue() ? "" : reread.error().format().c_str());
        std::size_t externals = 0;
        for (std::size_t i = 0; i < loaded->model->valueCapacity(); ++i) {
            const ir::Value &before = loaded->model->value(ir::ValueId(static_cast<std::uint32_t>(i)));
            if (!before.initializer || !before.initializer->isExternal())
                continue;
            ++externals;
            const auto found = reread->model->lookup(reread->model->mainGraph(), before.name);
            QVERIFY(found.has_value());
            const ir::Value &after = reread->model->value(*found);
            QVERIFY(after.initializer && after.initializer->isExternal());
            QVERIFY(after.initializer->file->path().find("copy.onnx.data") != std::string::npos);
            const auto a = before.initializer->rawBytes(), b = after.initializer->rawBytes();
            QVERIFY(a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()));
        }
        QVERIFY(externals > 0);

        // its data file is the save's too: refused unless overwriting, replaced whole when asked
        const auto again = ir::saveModelFile(*loaded->model, out);
        QVERIFY(!again.isOk());
        QCOMPARE(again.error().primary.code, std::string("file-exists"));
        QVERIFY(QFile::remove(QString::fromStdString(out)));
        const auto dataOnly = ir::saveModelFile(*loaded->model, out);
        QVERIFY2(!dataOnly.isOk() && dataOnly.error().format().find("copy.onnx.data") != std::string::npos,
                 "a data file left from another save is not overwritten in silence");
        QVERIFY(!QFileInfo::exists(QString::fromStdString(out)));
        QVERIFY(ir::saveModelFile(*reread->model, out + ".again.onnx").isOk()); // saving a saved copy reads its own data
        QVERIFY(ir::loadModelFile(out + ".again.onnx").hasValue());
    }
};

QTEST_GUILESS_MAIN(TestRoundTrip)
#include "tst_RoundTrip.moc"
