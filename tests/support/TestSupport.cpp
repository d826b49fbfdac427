// Test helpers.
#include "support/TestSupport.h"

#include <onnx/defs/parser.h>

#include "ir/ModelSaver.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace portolan::test {

namespace fs = std::filesystem;

std::string fixturesDir()
{
    // a test program carried to another machine (scripts/gpu-check.sh) finds them where it is told
    const char *moved = std::getenv("PORTOLAN_FIXTURES_DIR");
    return moved && *moved ? moved : PORTOLAN_TEST_FIXTURES_DIR;
}

std::string onnxTestDataDir()
{
    const std::string dir = PORTOLAN_ONNX_TESTDATA_DIR;
    return fs::is_directory(dir) ? dir : std::string();
}

std::vector<std::string> onnxTestDataModels()
{
    std::vector<std::string> models;
    const std::string root = onnxTestDataDir();
    if (root.empty())
        return models;
    for (const auto &entry : fs::recursive_directory_iterator(root))
        if (entry.is_regular_file() && entry.path().filename() == "model.onnx")
            models.push_back(entry.path().string());
    std::sort(models.begin(), models.end());
    return models;
}

std::vector<std::string> fixtureNames()
{
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(fixturesDir()))
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

onnx::ModelProto parseModelText(const char *text)
{
    onnx::ModelProto model;
    const auto status = onnx::OnnxParser::Parse(model, text);
    if (!status.IsOK()) {
        std::fprintf(stderr, "test model does not parse: %s\n%s\n", status.ErrorMessage().c_str(), text);
        std::abort();
    }
    return model;
}

std::string canonicalBytes(const google::protobuf::Message &message)
{
    return ir::serializeDeterministic(message);
}

support::Expected<ir::LoadedModel> loadModelText(const char *text)
{
    const std::string bytes = canonicalBytes(parseModelText(text));
    return ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "text-model", {});
}

onnx::ModelProto syntheticModel(int layers, int nodesPerLayer)
{
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("portolan-synthetic");
    model.add_opset_import()->set_version(17);
    onnx::GraphProto *g = model.mutable_graph();
    g->set_name("synthetic");

    auto addTensorInfo = [](onnx::ValueInfoProto *info, const std::string &name) {
        info->set_name(name);
        auto *t = info->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        t->mutable_shape()->add_dim()->set_dim_param("batch");
        t->mutable_shape()->add_dim()->set_dim_value(16);
    };
    addTensorInfo(g->add_input(), "input");
    onnx::TensorProto *bias = g->add_initializer();
    bias->set_name("bias");
    bias->set_data_type(onnx::TensorProto::FLOAT);
    bias->add_dims(16);
    for (int i = 0; i < 16; ++i)
        bias->add_float_data(0.01f * static_cast<float>(i));

    // Each layer: a chain of elementwise ops in sub-scopes, with a residual Add closing it.
    static const char *ops[] = {"Add", "Relu", "Mul", "Sigmoid", "Sub", "Tanh"};
    static const char *scopes[] = {"attn", "mlp", "norm"};
    std::string current = "input";
    int counter = 0;
    for (int layer = 0; layer < layers; ++layer) {
        const std::string layerInput = current;
        for (int k = 0; k < nodesPerLayer - 1; ++k) {
            const char *op = ops[k % 6];
            onnx::NodeProto *n = g->add_node();
            n->set_op_type(op);
            n->set_name("/encoder/layer." + std::to_string(layer) + "/" + scopes[(k / 4) % 3] + "/" + op + "_" +
                        std::to_string(counter));
            n->add_input(current);
            const std::string kind(op);
            if (kind == "Add" || kind == "Mul" || kind == "Sub")
                n->add_input("bias");
            current = "t" + std::to_string(counter++);
            n->add_output(current);
        }
        onnx::NodeProto *residual = g->add_node();
        residual->set_op_type("Add");
        residual->set_name("/encoder/layer." + std::to_string(layer) + "/Add_residual");
        residual->add_input(current);
        residual->add_input(layerInput);
        current = "t" + std::to_string(counter++);
        residual->add_output(current);
    }
    onnx::ValueInfoProto *out = g->add_output();
    addTensorInfo(out, current);
    return model;
}

} // namespace portolan::test
