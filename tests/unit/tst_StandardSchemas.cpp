// Portolan's schemas of the standard op versions of opsets 18–27 (opset/StandardSchemas.h): every
// version is registered, and shape inference over them gives the shapes and element types ONNX
// Runtime produced for the opset 18–25 conformance suite (tests/data/conformance).
#include "analysis/OpSchemas.h"
#include "analysis/ShapeInference.h"
#include "conform/Conformance.h"
#include "ir/ModelLoader.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include <QtTest>

#include <algorithm>

#include <filesystem>
#include <fstream>

using namespace portolan;

namespace {

std::optional<onnx::TensorProto> readTensor(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    onnx::TensorProto tensor;
    if (!in || !tensor.ParseFromIstream(&in))
        return std::nullopt;
    return tensor;
}

std::string dimsText(const onnx::TypeProto &type)
{
    std::string out = "[";
    for (const auto &d : type.tensor_type().shape().dim())
        out += (out.size() > 1 ? "," : "") + (d.has_dim_value() ? std::to_string(d.dim_value()) : "?" + d.dim_param());
    return out + "]";
}

} // namespace

class TestStandardSchemas : public QObject {
    Q_OBJECT

private slots:
    void everyVersionFrom18To27IsRegistered()
    {
        const std::vector<std::string> missing = opset::missingStandardSchemas();
        std::string list;
        for (const std::string &m : missing)
            list += m + " ";
        QVERIFY2(missing.empty(), ("no schema for: " + list).c_str());
    }

    void aTypesOnlyVersionKeepsItsPredecessorsRulesWithTheNewTypes()
    {
        // Conv-22 only added bfloat16: same inputs and attributes as Conv-11, bfloat16 now accepted.
        const onnx::OpSchema *conv = analysis::findSchema("Conv", "", 22);
        QVERIFY(conv != nullptr);
        QCOMPARE(conv->SinceVersion(), 22);
        QCOMPARE(conv->inputs().size(), std::size_t(3));
        QVERIFY(conv->attributes().count("dilations"));
        const auto &types = conv->typeConstraintParams().at(0).allowed_type_strs;
        QVERIFY(std::find(types.begin(), types.end(), "tensor(bfloat16)") != types.end());
        QCOMPARE(analysis::findSchema("Conv", "", 21)->SinceVersion(), 11);
    }

    void aChangedVersionHasItsOwnInputsAndAttributes()
    {
        const onnx::OpSchema *reduce = analysis::findSchema("ReduceMean", "", 20);
        QVERIFY(reduce != nullptr);
        QCOMPARE(reduce->SinceVersion(), 18);
        QCOMPARE(reduce->inputs().size(), std::size_t(2)); // axes became an input
        QVERIFY(reduce->attributes().count("noop_with_empty_axes"));
        QVERIFY(!reduce->attributes().count("axes"));
        const auto doc = analysis::opDoc("Attention", "", 24);
        QVERIFY(doc.has_value());
        QCOMPARE(doc->sinceVersion, 24);
        QVERIFY(!doc->doc.empty());
        QVERIFY(doc->inputs.size() >= 3);
    }

    void conformanceShapesAreInferred()
    {
        // axes, a shape or Range's operands fed as graph inputs, an image's size inside its encoded
        // stream, the most pieces a string splits into: no inference can know these dims
        const std::vector<std::string> kShapeFromRunTimeValues = {
            "test_range_27_float16_",
            "test_image_decoder_", "test_string_split_"};
        const auto shapeFromRunTimeValues = [&](const std::string &test) {
            return std::any_of(kShapeFromRunTimeValues.begin(), kShapeFromRunTimeValues.end(),
                               [&](const std::string &prefix) { return test.starts_with(prefix); });
        };
        // A node whose input past the first (ConstantOfShape: its only one) is fed at run time and carries sizes, axes, pads or scales
        // (an integer tensor, or Resize's float scales) has a shape only the run knows.
        const auto shapedByFedInput = [](const ir::Model &model, ir::ValueId output) {
            const ir::NodeId producer = model.value(output).producer;
            if (!producer.valid())
                return false;
            const ir::Node &node = model.node(producer);
            for (std::size_t k = node.opType == "ConstantOfShape" ? 0 : 1; k < node.inputs.size(); ++k) {
                if (!node.inputs[k].valid())
                    continue;
                const ir::Value &input = model.value(node.inputs[k]);
                const int type = input.type().has_tensor_type() ? input.type().tensor_type().elem_type() : 0;
                const bool fed = !input.producer.valid() && !input.isInitializer();
                const bool integer = type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32;
                if (fed && (integer || node.opType == "Resize"))
                    return true;
            }
            return false;
        };
        int runTimeShapes = 0;
        const auto cases = conform::findCases({std::string(PORTOLAN_SOURCE_DIR) + "/tests/data/conformance"});
        QVERIFY(cases.size() >= 74);
        int outputsChecked = 0, staticOutputs = 0;
        std::vector<std::string> unexplained; // outputs without a static shape, listed all at once
        for (const std::string &dir : cases) {
            auto loaded = ir::loadModelFile(dir + "/model.onnx");
            QVERIFY2(loaded.hasValue(), dir.c_str());
            const ir::Model &model = *loaded->model;
            const auto result = analysis::inferShapes(model);
            for (const auto &finding : result.findings)
                QVERIFY2(finding.severity != support::Severity::Error, (dir + ": " + finding.message).c_str());
            const ir::Graph &main = model.graph(model.mainGraph());
            for (std::size_t i = 0; i < main.outputs.size(); ++i) {
                const std::string &name = model.value(main.outputs[i]).name;
                const auto expected = readTensor(std::filesystem::path(dir) / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb"));
                QVERIFY2(expected.has_value(), (dir + ": output " + std::to_string(i)).c_str());
                const auto inferred = result.types.find(name);
                const std::string where = dir + ", output '" + name + "'";
                QVERIFY2(inferred != result.types.end() && inferred->second.has_tensor_type(), (where + ": no type").c_str());
                const auto &tensorType = inferred->second.tensor_type();
                QVERIFY2(tensorType.elem_type() == expected->data_type(), (where + ": element type").c_str());
                ++outputsChecked;
                const std::string test = std::filesystem::path(dir).filename().string();
                const bool runTimeShape = shapeFromRunTimeValues(test) || shapedByFedInput(model, main.outputs[i]);
                if (!tensorType.has_shape()) { // not even a rank
                    if (!runTimeShape)
                        unexplained.push_back(where + ": no shape");
                    ++runTimeShapes;
                    continue;
                }
                const auto dims = analysis::staticDims(inferred->second);
                QVERIFY2(tensorType.shape().dim_size() == expected->dims_size(), (where + ": rank of " + dimsText(inferred->second)).c_str());
                if (!dims) { // only a shape computed from a value fed at run time may stay unknown
                    if (!runTimeShape)
                        unexplained.push_back(where + ": inferred " + dimsText(inferred->second));
                    ++runTimeShapes;
                    continue;
                }
                const std::vector<std::int64_t> truth(expected->dims().begin(), expected->dims().end());
                QVERIFY2(*dims == truth, (where + ": inferred " + dimsText(inferred->second)).c_str());
                ++staticOutputs;
            }
        }
        for (const std::string &line : unexplained) // QVERIFY2 cuts long messages: one line each
            qWarning("no static shape, and no value fed at run time to explain it: %s", line.c_str());
        QVERIFY2(unexplained.empty(), (std::to_string(unexplained.size()) + " output(s) listed above").c_str());
        qInfo("%d outputs typed, %d with a static shape equal to ONNX Runtime's", outputsChecked, staticOutputs);
        QCOMPARE(staticOutputs, outputsChecked - runTimeShapes);
        QVERIFY(staticOutputs > 150); // the rule above must not swallow the suite
    }
};

QTEST_GUILESS_MAIN(TestStandardSchemas)
#include "tst_StandardSchemas.moc"
