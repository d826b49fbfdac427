// Op type → category by table; the ai.portolan fused ops read as the family of what they replaced.
#include "layout/OpCategory.h"

#include <string_view>
#include <unordered_map>

namespace portolan::layout {

namespace {

const std::unordered_map<std::string_view, OpCategory> &table()
{
    using C = OpCategory;
    static const std::unordered_map<std::string_view, OpCategory> map = [] {
        std::unordered_map<std::string_view, OpCategory> m;
        auto add = [&m](C c, std::initializer_list<std::string_view> ops) {
            for (auto op : ops)
                m.emplace(op, c);
        };
        add(C::Layer, {"Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum", "RNN", "GRU", "LSTM", "Attention",
                       "FusedConv", "FusedGemm", "FusedMatMul", "MultiHeadAttention", "DeformConv"});
        add(C::Activation, {"Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Gelu", "FastGelu", "Sigmoid",
                            "HardSigmoid", "HardSwish", "Tanh", "Softmax", "LogSoftmax", "Softplus", "Softsign",
                            "ThresholdedRelu", "Mish", "Hardmax", "Clip", "BiasGelu"});
        add(C::Normalization, {"BatchNormalization", "LayerNormalization", "InstanceNormalization", "LpNormalization",
                               "LRN", "MeanVarianceNormalization", "GroupNormalization", "RMSNormalization",
                               "SkipLayerNormalization"});
        add(C::Elementwise, {"FusedElementwise"});
        add(C::Pooling, {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "GlobalLpPool",
                         "MaxRoiPool", "RoiAlign", "MaxUnpool", "Resize", "Upsample"});
        add(C::Shape, {"Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
                       "Scatter", "ScatterElements", "ScatterND", "Squeeze", "Unsqueeze", "Flatten", "Expand", "Tile",
                       "Pad", "Shape", "Size", "Identity", "Cast", "CastLike", "DepthToSpace", "SpaceToDepth",
                       "Compress", "NonZero", "Where", "OneHot", "Range", "Trilu", "ReverseSequence", "Dropout",
                       "SequenceAt", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SequenceLength",
                       "SplitToSequence", "ConcatFromSequence", "SequenceEmpty", "Optional", "OptionalGetElement",
                       "OptionalHasElement", "TopK", "Unique", "NonMaxSuppression", "ArgMax", "ArgMin"});
        add(C::Quantization, {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
                              "QLinearMatMul", "ConvInteger", "MatMulInteger"});
        add(C::ControlFlow, {"If", "Loop", "Scan"});
        add(C::Constant, {"Constant", "ConstantOfShape", "EyeLike", "RandomNormal", "RandomUniform",
                          "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial"});
        return m;
    }();
    return map;
}

} // namespace

OpCategory opCategory(const std::string &opType, const std::string &domain)
{
    const bool onnxDomain = domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml";
    const auto &map = table();
    if (auto it = map.find(opType); it != map.end() && (onnxDomain || domain == "ai.portolan"))
        return it->second;
    if (domain == "ai.portolan") // fused ops not in the table: name says the family
        return opType.find("Norm") != std::string::npos ? OpCategory::Normalization : OpCategory::Layer;
    return onnxDomain ? OpCategory::Elementwise : OpCategory::Custom;
}

const char *categoryName(OpCategory category)
{
    switch (category) {
    case OpCategory::Layer: return "layer";
    case OpCategory::Activation: return "activation";
    case OpCategory::Normalization: return "normalization";
    case OpCategory::Pooling: return "pooling";
    case OpCategory::Elementwise: return "elementwise";
    case OpCategory::Shape: return "shape";
    case OpCategory::Quantization: return "quantization";
    case OpCategory::ControlFlow: return "control-flow";
    case OpCategory::Constant: return "constant";
    case OpCategory::Custom: return "custom";
    }
    return "custom";
}

} // namespace portolan::layout
