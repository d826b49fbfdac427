// Precision choice per node, and the rounding and fake quantization that emulate a lowered store.
#include "runtime/Precision.h"

#include "runtime/Half.h"
#include "runtime/CalibrationTable.h"
#include "support/ParallelFor.h"

#include <immintrin.h>
#if defined(__clang__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

namespace portolan::runtime {

using support::makeError;

namespace {

const std::map<std::string, std::vector<std::string>> &groups()
{
    static const std::map<std::string, std::vector<std::string>> table{
        {"normalization", {"LayerNormalization", "SkipLayerNormalization", "RMSNormalization", "BatchNormalization",
                           "InstanceNormalization", "GroupNormalization", "LpNormalization", "MeanVarianceNormalization"}},
        {"softmax", {"Softmax", "LogSoftmax", "Hardmax"}},
        {"attention", {"Attention"}},
        {"activation", {"Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "Tanh", "Gelu", "HardSwish",
                        "Softplus", "Softsign", "PRelu", "Clip", "Erf", "Mish", "ThresholdedRelu"}},
        {"elementwise", {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Exp", "Log", "Sqrt", "Reciprocal",
                         "Neg", "Abs", "Where", "FusedElementwise"}},
        {"reduction", {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                       "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}},
        {"pooling", {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool"}},
        {"conv", {"Conv", "FusedConv", "ConvTranspose"}},
        {"matmul", {"MatMul", "Gemm", "FusedMatMul", "FusedGemm"}},
    };
    return table;
}

bool hasSubgraphs(const ir::Node &node)
{
    return std::any_of(node.attributes.begin(), node.attributes.end(), [](const ir::Attribute &a) { return !a.subgraphs.empty(); });
}

/// Applies f to every float of `tensor` in place, on the OpenMP pool when it is large.
template <typename F>
void mapFloats(Tensor &tensor, F f)
{
    if (tensor.dataType() != onnx::TensorProto::FLOAT)
        return;
    float *data = tensor.mutableData<float>();
    const std::int64_t n = tensor.size();
    support::parallelFor(n, n >= (1 << 16), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i)
            data[i] = f(data[i]);
    });
}

/// fp16 round trip on F16C, 8 floats an instruction: bit-identical to Float16 (round to nearest
/// even, ±inf past 65504, subnormals kept) and 20× faster than the scalar conversion.
__attribute__((target("avx2,f16c"))) void roundFp16Vector(float *data, std::int64_t begin, std::int64_t end)
{
    std::int64_t i = begin;
    for (; i + 8 <= end; i += 8) {
        const __m256 v = _mm256_loadu_ps(data + i);
        _mm256_storeu_ps(data + i, _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    }
    for (; i < end; ++i)
        data[i] = Float16::fromFloat(data[i]).toFloat();
}

/// bf16 round trip without branches, so the compiler vectorizes it: what BFloat16 computes.
void roundBf16(float *data, std::int64_t begin, std::int64_t end)
{
    auto *bits = reinterpret_cast<std::uint32_t *>(data);
    for (std::int64_t i = begin; i < end; ++i) {
        const std::uint32_t u = bits[i];
        const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
        const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
        bits[i] = nan ? ((u & 0xffff0000u) | 0x00400000u) : rounded; // NaN stays a quiet NaN
    }
}

float quantize(float x, float scale)
{
    const float q = std::nearbyint(x / scale); // ties to even, as QuantizeLinear rounds
    return std::clamp(q, -127.f, 127.f) * scale;
}

} // namespace

const char *precisionName(Precision precision)
{
    switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Fp16: return "fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Int8: return "int8";
    }
    return "?";
}

support::Expected<Precision> parsePrecision(const std::string &text)
{
    for (const Precision p : {Precision::Fp32, Precision::Fp16, Precision::Bf16, Precision::Int8})
        if (text == precisionName(p))
            return p;
    return makeError("bad-precision", "precision '" + text + "' is not one of: fp32, fp16, bf16, int8");
}

std::vector<std::string> keepGroups()
{
    std::vector<std::string> names;
    for (const auto &[name, ops] : groups())
        names.push_back(name);
    return names;
}

support::Expected<KeepFp32Rule> KeepFp32Rule::parse(const std::string &text)
{
    KeepFp32Rule rule;
    rule.text = text;
    auto split = [](std::string_view list) {
        std::vector<std::string> items;
        for (std::size_t at = 0; at <= list.size();) {
            const std::size_t comma = std::min(list.find(',', at), list.size());
            if (comma > at)
                items.emplace_back(list.substr(at, comma - at));
            at = comma + 1;
        }
        return items;
    };
    if (text.starts_with("op:")) {
        rule.kind = Kind::OpType;
        rule.opTypes = split(std::string_view(text).substr(3));
        if (rule.opTypes.empty())
            return makeError("bad-keep-rule", "--keep-fp32 '" + text + "' names no op type");
        return rule;
    }
    if (text.starts_with("group:")) {
        rule.kind = Kind::Group;
        const auto it = groups().find(text.substr(6));
        if (it == groups().end()) {
            std::string known;
            for (const std::string &g : keepGroups())
                known += (known.empty() ? "" : ", ") + g;
            return makeError("bad-keep-rule", "--keep-fp32 '" + text + "': no such group; the groups are " + known);
        }
        rule.opTypes = it->second;
        return rule;
    }
    if (text.starts_with("node:")) {
        rule.kind = Kind::Node;
        rule.nodeName = text.substr(5);
        return rule;
    }
    const std::string pattern = text.starts_with("name:") ? text.substr(5) : text;
    try {
        rule.regex = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
        return makeError("bad-keep-rule", "--keep-fp32 '" + text + "' is not a regular expression: " + e.what());
    }
    return rule;
}

bool KeepFp32Rule::matches(const ir::Node &node) const
{
    if (kind == Kind::NameRegex)
        return std::regex_search(node.name, regex);
    if (kind == Kind::Node)
        return node.name == nodeName;
    return std::find(opTypes.begin(), opTypes.end(), node.opType) != opTypes.end();
}

bool movesDataOnly(const ir::Node &node)
{
    static const std::set<std::string_view> ops{
        "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose", "Gather", "GatherElements", "GatherND",
        "Slice", "Concat", "Split", "Expand", "Tile", "Shape", "Size", "DepthToSpace", "SpaceToDepth", "Pad"};
    return node.domain.empty() && ops.contains(node.opType);
}

bool isQuantizable(const ir::Node &node)
{
    static const std::set<std::string_view> standard{"Conv", "MatMul", "Gemm"};
    static const std::set<std::string_view> portolan{"FusedConv", "FusedMatMul", "FusedGemm"};
    return node.domain.empty() ? standard.contains(node.opType)
                               : node.domain == "ai.portolan" && portolan.contains(node.opType);
}

bool isQuantizedInput(const ir::Node &node, std::size_t input)
{
    return isQuantizable(node) && input < 2;
}

support::Expected<float> calibratedScale(const ir::Model &model, const ir::Node &node, std::size_t input, const PrecisionPolicy &policy)
{
    const std::string &name = model.value(node.inputs[input]).name;
    const auto scale = policy.calibration ? policy.calibration->scaleOf(name) : std::nullopt;
    if (!scale)
        return makeError("not-calibrated", "int8 needs the range of '" + name + "' (input " + std::to_string(input) +
                                               "), which the calibration table lacks: calibrate on this graph and pipeline",
                         model.sourcePath, node.name.empty() ? "(" + node.opType + ")" : node.name);
    return *scale;
}

std::size_t weightChannelAxis(const ir::Node &node, const Shape &shape)
{
    if (node.opType == "Conv" || node.opType == "FusedConv")
        return 0;
    if (node.opType == "Gemm" || node.opType == "FusedGemm") {
        for (const ir::Attribute &a : node.attributes)
            if (a.name() == "transB" && a.proto.i() != 0)
                return 0;
        return 1;
    }
    return shape.size() >= 2 ? shape.size() - 1 : shape.size(); // a vector B: one scale for all
}

NodePrecision choosePrecision(const ir::Node &node, const PrecisionPolicy &policy)
{
    if (policy.precision == Precision::Fp32)
        return {};
    for (const KeepFp32Rule &rule : policy.keepFp32)
        if (rule.matches(node))
            return {Precision::Fp32, "kept by --keep-fp32 '" + rule.text + "'"};
    if (hasSubgraphs(node))
        return {Precision::Fp32, "has subgraphs"};
    if (policy.precision == Precision::Int8 && !isQuantizable(node))
        return {Precision::Fp32, "int8 quantizes Conv, MatMul and Gemm only"};
    return {policy.precision, {}};
}

void roundFloats(Tensor &tensor, Precision precision)
{
    if (tensor.dataType() != onnx::TensorProto::FLOAT || (precision != Precision::Fp16 && precision != Precision::Bf16))
        return;
    float *data = tensor.mutableData<float>();
    const std::int64_t n = tensor.size();
#if defined(__clang__) // clang before 16 knows no "f16c" feature name in __builtin_cpu_supports: ask cpuid
    static const bool f16c = __builtin_cpu_supports("avx2") && [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
    }();
#else
    static const bool f16c = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#endif
    support::parallelFor(n, n >= (1 << 16), [&](std::int64_t begin, std::int64_t end) {
        if (precision == Precision::Bf16)
            roundBf16(data, begin, end);
        else if (f16c)
            roundFp16Vector(data, begin, end);
        else
            for (std::int64_t i = begin; i < end; ++i)
                data[i] = Float16::fromFloat(data[i]).toFloat();
    });
}

void fakeQuantize(Tensor &tensor, float scale)
{
    if (!(scale > 0) || !std::isfinite(scale))
        mapFloats(tensor, [](float) { return 0.f; }); // calibration saw only zeros
    else
        mapFloats(tensor, [scale](float x) { return quantize(x, scale); });
}

Tensor fakeQuantizePerChannel(const Tensor &weight, std::size_t axis)
{
    Tensor out = weight.clone();
    if (out.dataType() != onnx::TensorProto::FLOAT)
        return out;
    const Shape &shape = out.shape();
    const std::int64_t channels = axis < shape.size() ? shape[axis] : 1;
    std::int64_t inner = 1;
    for (std::size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
    const std::int64_t n = out.size();
    float *w = out.mutableData<float>();
    auto channelOf = [&](std::int64_t i) { return channels == 1 ? 0 : (i / inner) % channels; };
    std::vector<float> absMax(static_cast<std::size_t>(channels), 0.f);
    for (std::int64_t i = 0; i < n; ++i)
        absMax[static_cast<std::size_t>(channelOf(i))] = std::max(absMax[static_cast<std::size_t>(channelOf(i))], std::fabs(w[i]));
    for (std::int64_t i = 0; i < n; ++i) {
        const float scale = absMax[static_cast<std::size_t>(channelOf(i))] / 127.f;
        w[i] = scale > 0 ? quantize(w[i], scale) : 0.f;
    }
    return out;
}

} // namespace portolan::runtime
