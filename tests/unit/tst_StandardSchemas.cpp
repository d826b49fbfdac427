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
            "test_reduce_max_axes_fed_at_run_time", "test_constant_of_shape_opset21", "test_range_27_float16_",
            "test_image_decoder_", "test_string_split_"};
        const auto shapeFromRunTimeValues = [&](const std::string &test) {
            return std::any_of(kShapeFromRunTimeValues.begin(), kShapeFromRunTimeValues.end(),
                               [&](const std::string &prefix) { return test.starts_with(prefix); });
        };
        int runTimeShapes = 0;
        const auto cases = conform::findCases({std::string(PORTOLAN_SOURCE_DIR) + "/tests/data/conformance"});
        QVERIFY(cases.size() >= 74);
        int outputsChecked = 0, staticOutputs = 0;
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
                if (!tensorType.has_shape())
                    continue;
                const auto dims = analysis::staticDims(inferred->second);
                QVERIFY2(tensorType.shape().dim_size() == expected->dims_size(), (where + ": rank of " + dimsText(inferred->second)).c_str());
                if (!dims) { // only a shape computed from a value fed at run time may stay unknown
                    const std::string test = std::filesystem::path(dir).filename().string();
                    QVERIFY2(shapeFromRunTimeValues(test), (where + ": no static shape").c_str());
                    ++runTimeShapes;
                    continue;
                }
                const std::vector<std::int64_t> truth(expected->dims().begin(), expected->dims().end());
                QVERIFY2(*dims == truth, (where + ": inferred " + dimsText(inferred->second)).c_str());
                ++staticOutputs;
            }
        }
        qInfo("%d outputs typed, %d with a static shape equal to ONNX Runtime's", outputsChecked, staticOutputs);
        QCOMPARE(staticOutputs, outputsChecked - runTimeShapes);
        QVERIFY(staticOutputs > 150); // the rule above must not swallow the suite
    }
};

QTEST_GUILESS_MAIN(TestStandardSchemas)
#include "tst_StandardSchemas.moc"
