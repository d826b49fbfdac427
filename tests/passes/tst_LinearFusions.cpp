// The linear and elementwise fusions (fuse-conv-bn, fuse-conv-add, fuse-conv-activation,
// fuse-matmul-add, fuse-gemm-activation, fuse-elementwise) and the ai.portolan ops they create:
// positive cases, near-misses with their reasons, bad inputs. lower-precision: tst_LowerPrecision.
#include "LinearFusionModels.h"

#include "analysis/ShapeInference.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "passes/ActivationMatch.h"
#include "passes/Match.h"
#include "runtime/reference/KernelRegistry.h"

#include <onnx/defs/schema.h>

#include <algorithm>

using namespace portolan;
using namespace portolan::test::linear;

class tst_LinearFusions : public QObject {
    Q_OBJECT
private slots:
    void fusedOpsInferShapes();
    void convBatchNormFoldsIntoWeights();
    void convBatchNormNearMisses();
    void gemmAndMatMulBatchNormFold();
    void convAddBiasFoldsIntoConv();
    void convAddResidualBecomesFusedConv();
    void convAddNearMisses();
    void convActivationFuses_data();
    void convActivationFuses();
    void convActivationNearMisses();
    void matMulAddBecomesGemmOrFusedMatMul();
    void matMulAddNearMisses();
    void gemmActivationFuses();
    void geluNodesReadAsActivations();
    void elementwiseChainBecomesOneNode();
    void elementwiseNearMisses();
    void cnnFixtureFusesLikeO2();
    void fusionsHoldOnEveryFixture();
};

// ---- the ai.portolan schemas ----

void tst_LinearFusions::fusedOpsInferShapes()
{
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[1,2,5,5] x, float[3,2,3,3] w, float[3] b, float[1,3,5,5] z, float[2,4,6] a, float[6,5] m, float[5] bias,
   float[4,6] p, float[5,6] q) => (float[1,3,5,5] y1, float[2,4,5] y2, float[4,5] y3, float[2,4,5] y4)
{
    t1 = ai.portolan.FusedConv <pads = [1, 1, 1, 1], activation = "Relu"> (x, w, b, z)
    y1 = Identity(t1)
    t2 = ai.portolan.FusedMatMul <activation = "Tanh"> (a, m, bias)
    y2 = Identity(t2)
    t3 = ai.portolan.FusedGemm <transB = 1, activation = "LeakyRelu", activation_params = [0.1]> (p, q)
    y3 = Identity(t3)
    t4 = Add(t2, bias)
    t5 = Sigmoid(t4)
    y4 = Softmax(t5)
}
)");
    QVERIFY(model);
    auto fused = test::runChecked(*model, "fuse-elementwise"); // t4, t5 → FusedElementwise, read by Softmax
    QVERIFY(fused);
    const auto inferred = analysis::inferShapes(*fused->model);
    QVERIFY2(inferred.findings.empty(), inferred.findings.empty() ? "" : inferred.findings.front().format().c_str());
    auto typeOf = [&](const std::string &name) {
        const auto it = inferred.types.find(name);
        return it == inferred.types.end() ? std::string("none") : ir::typeString(it->second);
    };
    QCOMPARE(typeOf("t1"), std::string("float[1,3,5,5]"));
    QCOMPARE(typeOf("t2"), std::string("float[2,4,5]"));
    QCOMPARE(typeOf("t3"), std::string("float[4,5]"));
    QCOMPARE(typeOf(fused->model->value(findNode(*fused->model, "FusedElementwise")->outputs[0]).name),
             std::string("float[2,4,5]"));
}

// ---- fuse-conv-bn ----

void tst_LinearFusions::convBatchNormFoldsIntoWeights()
{
    auto model = load(convModel("float[1,3,5,5] y", "", bnStats(3), "    y = BatchNormalization <epsilon = 0.001> (c, gamma, beta, mean, var)\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-conv-bn");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Conv", 1}}));
    QCOMPARE(result->passes[0].statistics.at("fused"), std::int64_t(1));
    QVERIFY(test::numericsHeld(*result));
    // the old weight, bias and statistics went with the rewrite
    QCOMPARE(result->model->graph(result->model->mainGraph()).initializers.size(), std::size_t(2));
}

void tst_LinearFusions::convBatchNormNearMisses()
{
    // a Conv output read twice: the BN cannot take it alone
    auto shared = load(convModel("float[1,3,5,5] y, float[1,3,5,5] r", "", bnStats(3),
                                 "    y = BatchNormalization (c, gamma, beta, mean, var)\n    r = Relu(c)\n"));
    QVERIFY(shared);
    auto result = test::runChecked(*shared, "fuse-conv-bn");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-bn"), std::string("Conv output has 2 consumers"));

    // bad input: the running mean is a graph input, not a constant
    auto nonConstant = load(convModel("float[1,3,5,5] y", ", float[3] mean", "float[3] gamma = {1, 1, 1}, float[3] beta = {0, 0, 0}, float[3] var = {1, 2, 3}",
                                      "    y = BatchNormalization (c, gamma, beta, mean, var)\n"));
    QVERIFY(nonConstant);
    result = test::runChecked(*nonConstant, "fuse-conv-bn");
    QVERIFY(result);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-bn"), std::string("BatchNormalization mean is not a constant"));
    QVERIFY(test::opHistogram(*result->model).contains("BatchNormalization"));

    // training mode keeps its statistics
    auto training = load(convModel("float[1,3,5,5] y", "", bnStats(3),
                                   "    y = BatchNormalization <training_mode = 1> (c, gamma, beta, mean, var)\n"));
    QVERIFY(training);
    result = test::runChecked(*training, "fuse-conv-bn");
    QVERIFY(result);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-bn"), std::string("BatchNormalization is in training mode"));
}

void tst_LinearFusions::gemmAndMatMulBatchNormFold()
{
    auto gemm = load("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                     "g (float[4,6] x) => (float[4,5] y)\n"
                     "<float[5,6] w = " + values(30, -1, 1, 3) + ", float[5] cb = " + values(5, -1, 1, 4) + ", " + bnStats(5) + ">\n"
                     "{\n    t = Gemm <transB = 1, beta = 0.5> (x, w, cb)\n    y = BatchNormalization (t, gamma, beta, mean, var)\n}\n");
    QVERIFY(gemm);
    auto result = test::runChecked(*gemm, "fuse-conv-bn");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Gemm", 1}}));
    QVERIFY(test::numericsHeld(*result));

    const std::string matMulModel = "<ir_version: 8, opset_import: [\"\" : 17]>\n"
                                    "g (float[4,6] x) => (float[4,5] y)\n"
                                    "<float[6,5] w = " + values(30, -1, 1, 5) + ", " + bnStats(5) + ">\n"
                                    "{\n    t = MatMul (x, w)\n    y = BatchNormalization (t, gamma, beta, mean, var)\n}\n";
    auto matMul = load(matMulModel);
    QVERIFY(matMul);
    result = test::runChecked(*matMul, "fuse-conv-bn");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Gemm", 1}}));
    QVERIFY(test::numericsHeld(*result));

    // a 3-D MatMul normalizes axis 1, not the product's columns
    auto deep = load("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                     "g (float[2,5,6] x) => (float[2,5,5] y)\n"
                     "<float[6,5] w = " + values(30, -1, 1, 5) + ", " + bnStats(5) + ">\n"
                     "{\n    t = MatMul (x, w)\n    y = BatchNormalization (t, gamma, beta, mean, var)\n}\n");
    QVERIFY(deep);
    result = test::runChecked(*deep, "fuse-conv-bn");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QVERIFY2(test::failureReasons(*result, "fuse-conv-bn").find("has rank 3") != std::string::npos,
             test::failureReasons(*result, "fuse-conv-bn").c_str());
}

// ---- fuse-conv-add ----

void tst_LinearFusions::convAddBiasFoldsIntoConv()
{
    // constant on the left, [1,3,1,1]
    auto model = load(convModel("float[1,3,5,5] y", "", "float[1,3,1,1] k = {0.5, -1, 2}", "    y = Add(k, c)\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-conv-add");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Conv", 1}}));
    QVERIFY(test::numericsHeld(*result));

    // a Conv without bias and a [3,1,1] constant
    auto noBias = load("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                       "g (float[1,2,5,5] x) => (float[1,3,5,5] y)\n"
                       "<float[3,2,3,3] w = " + values(54, -1, 1, 1) + ", float[3,1,1] k = {0.5, -1, 2}>\n"
                       "{\n    c = Conv <pads = [1, 1, 1, 1]> (x, w)\n    y = Add(c, k)\n}\n");
    QVERIFY(noBias);
    result = test::runChecked(*noBias, "fuse-conv-add");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Conv", 1}}));
    QVERIFY(test::numericsHeld(*result));
}

void tst_LinearFusions::convAddResidualBecomesFusedConv()
{
    auto model = load(convModel("float[1,3,5,5] y", ", float[1,3,5,5] z", "", "    y = Add(z, c)\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-conv-add");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedConv", 1}}));
    QVERIFY(test::numericsHeld(*result));
    QCOMPARE(findNode(*result->model, "FusedConv")->inputs.size(), std::size_t(4));

    auto standard = test::runChecked(*model, "fuse-conv-add", standardOnly());
    QVERIFY(standard);
    QVERIFY(!standard->passes[0].changed);
    QCOMPARE(test::failureReasons(*standard, "fuse-conv-add"), std::string("standard-only: FusedConv is not a standard op"));
}

void tst_LinearFusions::convAddNearMisses()
{
    // bad input: the other operand broadcasts ([1,1,5,5]), so it is no residual of the output's shape
    auto broadcast = load(convModel("float[1,3,5,5] y", ", float[1,1,5,5] z", "", "    y = Add(c, z)\n"));
    QVERIFY(broadcast);
    auto result = test::runChecked(*broadcast, "fuse-conv-add");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QVERIFY2(test::failureReasons(*result, "fuse-conv-add").find("is not of the Conv output's shape") != std::string::npos,
             test::failureReasons(*result, "fuse-conv-add").c_str());

    // a constant that varies along the width is no per-channel bias
    auto perWidth = load(convModel("float[1,3,5,5] y", "", "float[5] k = {1, 2, 3, 4, 5}", "    y = Add(c, k)\n"));
    QVERIFY(perWidth);
    result = test::runChecked(*perWidth, "fuse-conv-add");
    QVERIFY(result);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-add"), std::string("Add constant [5] is not one value per output channel"));
}

// ---- fuse-conv-activation ----

void tst_LinearFusions::convActivationFuses_data()
{
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("activation");
    QTest::newRow("Relu") << "y = Relu(c)" << "Relu";
    QTest::newRow("Clip") << "y = Clip(c, lo, hi)" << "Clip";
    QTest::newRow("LeakyRelu") << "y = LeakyRelu <alpha = 0.2> (c)" << "LeakyRelu";
    QTest::newRow("Sigmoid") << "y = Sigmoid(c)" << "Sigmoid";
    QTest::newRow("HardSigmoid") << "y = HardSigmoid <alpha = 0.3, beta = 0.4> (c)" << "HardSigmoid";
    QTest::newRow("HardSwish") << "y = HardSwish(c)" << "HardSwish";
    QTest::newRow("Tanh") << "y = Tanh(c)" << "Tanh";
}

void tst_LinearFusions::convActivationFuses()
{
    QFETCH(QString, node);
    QFETCH(QString, activation);
    auto model = load(convModel("float[1,3,5,5] y", "", "float lo = {-0.5}, float hi = {0.75}",
                                "    " + node.toStdString() + "\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-conv-activation,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedConv", 1}}));
    QVERIFY(test::numericsHeld(*result));
    const ir::Node *fused = findNode(*result->model, "FusedConv");
    QCOMPARE(QString::fromStdString(passes::attrString(*fused, "activation", "")), activation);
    QCOMPARE(result->provenance.originsOf(fused->id).size(), std::size_t(2));
}

void tst_LinearFusions::convActivationNearMisses()
{
    // bad input: Clip's max is computed at run time
    auto model = load(convModel("float[1,3,5,5] y", ", float hi", "float lo = {0}", "    y = Clip(c, lo, hi)\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-conv-activation");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-activation"), std::string("Clip max is not a constant"));

    auto relu = load(convModel("float[1,3,5,5] y", "", "", "    y = Relu(c)\n"));
    QVERIFY(relu);
    result = test::runChecked(*relu, "fuse-conv-activation", standardOnly());
    QVERIFY(result);
    QCOMPARE(test::failureReasons(*result, "fuse-conv-activation"), std::string("standard-only: FusedConv is not a standard op"));
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Conv", 1}, {"Relu", 1}}));
}

// ---- fuse-matmul-add ----

static std::string matMulModel(const std::string &x, const std::string &y, const std::string &bias, bool biasFirst)
{
    return "<ir_version: 8, opset_import: [\"\" : 17]>\n"
           "g (" + x + " x) => (" + y + " y)\n"
           "<float[6,5] w = " + values(30, -1, 1, 6) + ", " + bias + ">\n"
           "{\n    t = MatMul (x, w)\n    y = Add(" + (biasFirst ? "bias, t" : "t, bias") + ")\n}\n";
}

void tst_LinearFusions::matMulAddBecomesGemmOrFusedMatMul()
{
    auto flat = load(matMulModel("float[4,6]", "float[4,5]", "float[5] bias = " + values(5, -1, 1, 7), true));
    QVERIFY(flat);
    auto result = test::runChecked(*flat, "fuse-matmul-add");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Gemm", 1}}));
    QVERIFY(test::numericsHeld(*result));

    auto deep = load(matMulModel("float[2,4,6]", "float[2,4,5]", "float[1,1,5] bias = " + values(5, -1, 1, 8), false));
    QVERIFY(deep);
    result = test::runChecked(*deep, "fuse-matmul-add");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedMatMul", 1}}));
    QVERIFY(test::numericsHeld(*result));

    auto standard = test::runChecked(*deep, "fuse-matmul-add", standardOnly());
    QVERIFY(standard);
    QVERIFY(!standard->passes[0].changed);
    QVERIFY(test::failureReasons(*standard, "fuse-matmul-add").starts_with("standard-only: FusedMatMul"));
}

void tst_LinearFusions::matMulAddNearMisses()
{
    // bad input: a [4,1] constant adds one value per row, not per column
    auto rows = load(matMulModel("float[4,6]", "float[4,5]", "float[4,1] bias = {1, 2, 3, 4}", false));
    QVERIFY(rows);
    auto result = test::runChecked(*rows, "fuse-matmul-add");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QCOMPARE(test::failureReasons(*result, "fuse-matmul-add"), std::string("Add constant [4,1] is not one value per column"));
}

// ---- fuse-gemm-activation ----

void tst_LinearFusions::gemmActivationFuses()
{
    auto gemm = load("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                     "g (float[4,6] x) => (float[4,5] y)\n"
                     "<float[5,6] w = " + values(30, -1, 1, 9) + ", float[5] cb = " + values(5, -1, 1, 10) + ">\n"
                     "{\n    t = Gemm <transB = 1, alpha = 0.5> (x, w, cb)\n    y = LeakyRelu(t)\n}\n");
    QVERIFY(gemm);
    auto result = test::runChecked(*gemm, "fuse-gemm-activation");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedGemm", 1}}));
    QVERIFY(test::numericsHeld(*result));

    // MatMul + Add + Tanh on 3-D inputs: one FusedMatMul with bias and activation
    const std::string deepText = "<ir_version: 8, opset_import: [\"\" : 17]>\n"
                                 "g (float[2,4,6] x) => (float[2,4,5] y)\n"
                                 "<float[6,5] w = " + values(30, -1, 1, 6) + ", float[5] bias = " + values(5, -1, 1, 8) + ">\n"
                                 "{\n    t = MatMul (x, w)\n    u = Add(t, bias)\n    y = Tanh(u)\n}\n";
    auto deep = load(deepText);
    QVERIFY(deep);
    result = test::runChecked(*deep, "fuse-matmul-add,fuse-gemm-activation");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedMatMul", 1}}));
    QVERIFY(test::numericsHeld(*result));
    const ir::Node *fused = findNode(*result->model, "FusedMatMul");
    QCOMPARE(passes::attrString(*fused, "activation", ""), std::string("Tanh"));
    QCOMPARE(result->provenance.originsOf(fused->id).size(), std::size_t(3));

    // Gelu (ai.portolan) is absorbed too, where the Gelu op exists in this build
    if (!runtime::findReferenceKernel("ai.portolan", "Gelu", 1) ||
        !onnx::OpSchemaRegistry::Schema("Gelu", 1, "ai.portolan"))
        QSKIP("ai.portolan::Gelu is not available in this build");
    auto gelu = load("<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\n"
                     "g (float[4,6] x) => (float[4,5] y)\n"
                     "<float[5,6] w = " + values(30, -1, 1, 9) + ">\n"
                     "{\n    t = Gemm <transB = 1> (x, w)\n    y = ai.portolan.Gelu <approximate = \"tanh\"> (t)\n}\n");
    QVERIFY(gelu);
    result = test::runChecked(*gelu, "fuse-gemm-activation");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedGemm", 1}}));
    QCOMPARE(passes::attrString(*findNode(*result->model, "FusedGemm"), "activation", ""), std::string("GeluTanh"));
    QVERIFY(test::numericsHeld(*result));
}

void tst_LinearFusions::geluNodesReadAsActivations()
{
    // read straight off the IR (the loader needs no schema): both spellings, both approximations
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[4] x) => (float[4] a, float[4] b, float[4] c)
{
    a = ai.portolan.Gelu (x)
    b = ai.portolan.Gelu <approximate = "tanh"> (x)
    c = ai.portolan.Gelu <approximate = "cubic"> (x)
}
)");
    QVERIFY(model);
    std::vector<std::string> read;
    for (const ir::NodeId n : model->graph(model->mainGraph()).nodes) {
        const ir::Node &node = model->node(n);
        QVERIFY(passes::isActivationOp(node, true));
        QVERIFY(!passes::isActivationOp(node, false)); // conv fusions do not take Gelu
        std::string why;
        const auto activation = passes::readActivation(*model, node, why);
        read.push_back(activation ? activation->name : why);
    }
    QCOMPARE(read, (std::vector<std::string>{"Gelu", "GeluTanh", "Gelu approximate 'cubic' is unknown"}));
}

// ---- fuse-elementwise ----

static const char *kElementwiseChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[3] z) => (float[2,3] y)
<float k = {1.5}, float e = {2}>
{
    a = Add(x, z)
    s = Sigmoid(a)
    m = Mul(s, k)
    p = Pow(m, e)
    y = Tanh(p)
}
)";

void tst_LinearFusions::elementwiseChainBecomesOneNode()
{
    auto model = load(kElementwiseChain);
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-elementwise");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"ai.portolan::FusedElementwise", 1}}));
    QVERIFY(test::numericsHeld(*result));
    const ir::Node *fused = findNode(*result->model, "FusedElementwise");
    QCOMPARE(fused->inputs.size(), std::size_t(4)); // x, z, k, e
    const ir::Attribute *body = fused->attribute("body");
    QVERIFY(body && body->subgraphs.size() == 1);
    QCOMPARE(result->model->graph(body->subgraphs[0]).nodes.size(), std::size_t(5));
    QCOMPARE(result->provenance.originsOf(fused->id).size(), std::size_t(5));
    QCOMPARE(result->passes[0].statistics.at("fused-nodes"), std::int64_t(5));

    // the body survives saving and loading, and the loaded model still runs to the same numbers
    auto reloaded = ir::loadModelProto(ir::toModelProto(*result->model), "reloaded", "");
    QVERIFY2(reloaded, reloaded ? "" : reloaded.error().format().c_str());
    QCOMPARE(ir::serializeModel(*reloaded->model), ir::serializeModel(*result->model));

    // a second run finds nothing more to do
    auto again = test::runChecked(*result->model, "fuse-elementwise");
    QVERIFY(again);
    QVERIFY(!again->passes[0].changed);
}

void tst_LinearFusions::elementwiseNearMisses()
{
    // `a` is read twice, so it ends a group: Sigmoid + Tanh fuse, Add and Relu stay alone
    auto shared = load(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[2,3] z) => (float[2,3] y, float[2,3] r)
{
    a = Add(x, z)
    s = Sigmoid(a)
    y = Tanh(s)
    r = Relu(a)
}
)");
    QVERIFY(shared);
    auto result = test::runChecked(*shared, "fuse-elementwise");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (Ops{{"Add", 1}, {"Relu", 1}, {"ai.portolan::FusedElementwise", 1}}));
    QVERIFY(test::numericsHeld(*result));

    // a longer minimum leaves the 5-op chain alone; standard-only says why it declines
    auto chain = load(kElementwiseChain);
    QVERIFY(chain);
    result = test::runChecked(*chain, "fuse-elementwise{min-length=6}");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    result = test::runChecked(*chain, "fuse-elementwise", standardOnly());
    QVERIFY(result);
    QCOMPARE(test::failureReasons(*result, "fuse-elementwise"), std::string("standard-only: FusedElementwise is not a standard op"));

    // bad input: a minimum below 1 is refused
    auto bad = passes::runPipeline(*chain, *passes::parsePipeline("fuse-elementwise{min-length=0}"), {});
    QVERIFY(!bad);
    QVERIFY2(bad.error().format().find("min-length") != std::string::npos, bad.error().format().c_str());
}

// ---- the pipeline on the CNN fixture ----

void tst_LinearFusions::cnnFixtureFusesLikeO2()
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    auto result = test::runChecked(*loaded->model, "fuse-conv-bn,fuse-conv-add,fuse-conv-activation,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    QVERIFY(!ops.contains("BatchNormalization"));
    QVERIFY(!ops.contains("Relu"));
    QCOMPARE(ops.at("ai.portolan::FusedConv"), 3);
    const ir::Node *fused = findNode(*result->model, "FusedConv");
    QVERIFY(fused);
    QCOMPARE(result->provenance.originsOf(fused->id).size(), std::size_t(3)); // Conv, BatchNormalization, Relu
}

void tst_LinearFusions::fusionsHoldOnEveryFixture()
{
    const std::string pipeline = "fuse-conv-bn,fuse-conv-add,fuse-conv-activation,fuse-matmul-add,fuse-gemm-activation,"
                                 "fuse-elementwise,eliminate-dead";
    for (const std::string &name : test::fixtureNames()) {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name + "/model.onnx");
        QVERIFY2(loaded, name.c_str());
        for (const bool standard : {false, true}) {
            auto first = test::runChecked(*loaded->model, pipeline, standard ? standardOnly() : passes::PassManagerOptions{});
            QVERIFY2(first, name.c_str());
            const bool changed = std::any_of(first->passes.begin(), first->passes.end(), [](const auto &p) { return p.changed; });
            QVERIFY2(!changed || test::numericsHeld(*first), name.c_str());
            if (standard)
                QVERIFY2(!first->model->opsetVersion("ai.portolan"), name.c_str());
            auto second = test::runChecked(*first->model, pipeline);
            QVERIFY2(second, name.c_str());
            for (const passes::PassResult &p : second->passes)
                QVERIFY2(!p.changed || standard, (name + ": " + p.invocation + " changed its own output").c_str());
        }
    }
}

QTEST_GUILESS_MAIN(tst_LinearFusions)
#include "tst_LinearFusions.moc"
