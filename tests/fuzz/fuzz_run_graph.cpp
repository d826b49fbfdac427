// libFuzzer target: a one-node opset-17 model drawn from the bytes, run on the reference interpreter and the CPU executor.
//
// The bytes pick an op, its attributes and its inputs (1–3 mostly, up to 5 where the op needs them:
// float/int32/int64/bool, at most 64 elements each, some as initializers) and the fed values. The
// model goes through ir::loadModelBytes like a file, then both executors run it under a 256 MiB
// memory cap; errors are fine, crashes and sanitizer reports are not. Where both succeed the
// outputs are compared; PORTOLAN_FUZZ_STRICT_COMPARE=1 aborts on a disagreement (by default the
// first few are printed).
#include "compare/TensorMetrics.h"
#include "ir/ModelLoader.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"

#include <fuzzer/FuzzedDataProvider.h>
#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace portolan;

namespace {

// Input kinds: T data of the node's type, F always float, I int64 indices/shape/axes (small values),
// B bool, S a scalar of the node's type, optional kinds in lower case (t, i, f, s) may be left out.
struct OpSpec {
    const char *op;
    const char *inputs;
    const char *attributes; // "name:kind" separated by spaces; kinds i (int), f (float), v (ints), s (string)
    int outputs;
    unsigned types; // bit 0 float, 1 int32, 2 int64, 3 bool
};

constexpr unsigned kF = 1, kI32 = 2, kI64 = 4, kB = 8, kNum = kF | kI32 | kI64, kAll = kNum | kB;

const OpSpec kOps[] = {
    {"Abs", "T", "", 1, kNum}, {"Neg", "T", "", 1, kNum}, {"Reciprocal", "T", "", 1, kF}, {"Sqrt", "T", "", 1, kF},
    {"Exp", "T", "", 1, kF}, {"Log", "T", "", 1, kF}, {"Sin", "T", "", 1, kF}, {"Tanh", "T", "", 1, kF},
    {"Sigmoid", "T", "", 1, kF}, {"Erf", "T", "", 1, kF}, {"Floor", "T", "", 1, kF}, {"Round", "T", "", 1, kF},
    {"Sign", "T", "", 1, kNum}, {"Relu", "T", "", 1, kNum}, {"Softplus", "T", "", 1, kF},
    {"LeakyRelu", "T", "alpha:f", 1, kF}, {"Elu", "T", "alpha:f", 1, kF}, {"Selu", "T", "alpha:f gamma:f", 1, kF},
    {"Celu", "T", "alpha:f", 1, kF}, {"ThresholdedRelu", "T", "alpha:f", 1, kF},
    {"HardSigmoid", "T", "alpha:f beta:f", 1, kF}, {"HardSwish", "T", "", 1, kF}, {"Shrink", "T", "bias:f lambd:f", 1, kNum},
    {"Not", "T", "", 1, kB}, {"IsNaN", "T", "", 1, kF}, {"IsInf", "T", "detect_negative:i detect_positive:i", 1, kF},
    {"Add", "TT", "", 1, kNum}, {"Sub", "TT", "", 1, kNum}, {"Mul", "TT", "", 1, kNum}, {"Div", "TT", "", 1, kNum},
    {"Pow", "TT", "", 1, kNum}, {"Mod", "TT", "fmod:i", 1, kNum}, {"Equal", "TT", "", 1, kAll}, {"Less", "TT", "", 1, kNum},
    {"Greater", "TT", "", 1, kNum}, {"And", "TT", "", 1, kB}, {"Or", "TT", "", 1, kB}, {"Xor", "TT", "", 1, kB},
    {"PRelu", "TT", "", 1, kNum}, {"Max", "TTt", "", 1, kNum}, {"Min", "TTt", "", 1, kNum}, {"Sum", "Ttt", "", 1, kF},
    {"Mean", "Ttt", "", 1, kF}, {"Where", "BTT", "", 1, kAll}, {"Clip", "Tss", "", 1, kNum},
    {"Cast", "T", "to:i", 1, kAll}, {"CastLike", "TT", "", 1, kAll}, {"Identity", "T", "", 1, kAll},
    {"Shape", "T", "start:i end:i", 1, kAll}, {"Size", "T", "", 1, kAll}, {"ConstantOfShape", "I", "", 1, kAll},
    {"Range", "SSS", "", 1, kNum}, {"EyeLike", "T", "k:i dtype:i", 1, kNum},
    {"Reshape", "TI", "allowzero:i", 1, kAll}, {"Flatten", "T", "axis:i", 1, kAll}, {"Squeeze", "Ti", "", 1, kAll},
    {"Unsqueeze", "TI", "", 1, kAll}, {"Transpose", "T", "perm:v", 1, kAll}, {"Concat", "Ttt", "axis:i", 1, kAll},
    {"Split", "Ti", "axis:i", 2, kAll}, {"Slice", "TIIii", "", 1, kAll}, {"Expand", "TI", "", 1, kAll},
    {"Tile", "TI", "", 1, kAll}, {"Pad", "TIsi", "mode:s", 1, kNum}, {"DepthToSpace", "T", "blocksize:i mode:s", 1, kNum},
    {"SpaceToDepth", "T", "blocksize:i", 1, kNum}, {"Trilu", "Ti", "upper:i", 1, kNum},
    {"ReverseSequence", "TI", "batch_axis:i time_axis:i", 1, kNum}, {"Gather", "TI", "axis:i", 1, kAll},
    {"GatherElements", "TI", "axis:i", 1, kAll}, {"GatherND", "TI", "batch_dims:i", 1, kAll},
    {"ScatterElements", "TIT", "axis:i reduction:s", 1, kNum}, {"ScatterND", "TIT", "reduction:s", 1, kNum},
    {"Compress", "TB", "axis:i", 1, kAll}, {"OneHot", "IIT", "axis:i", 1, kNum}, {"NonZero", "T", "", 1, kAll},
    {"TopK", "TI", "axis:i largest:i sorted:i", 2, kNum}, {"Unique", "T", "axis:i sorted:i", 4, kNum},
    {"CumSum", "TI", "exclusive:i reverse:i", 1, kNum}, {"ArgMax", "T", "axis:i keepdims:i select_last_index:i", 1, kNum},
    {"ArgMin", "T", "axis:i keepdims:i select_last_index:i", 1, kNum},
    {"ReduceSum", "Ti", "keepdims:i noop_with_empty_axes:i", 1, kNum}, {"ReduceMean", "T", "axes:v keepdims:i", 1, kNum},
    {"ReduceMax", "T", "axes:v keepdims:i", 1, kNum}, {"ReduceProd", "T", "axes:v keepdims:i", 1, kNum},
    {"ReduceL2", "T", "axes:v keepdims:i", 1, kF}, {"ReduceLogSumExp", "T", "axes:v keepdims:i", 1, kF},
    {"Softmax", "T", "axis:i", 1, kF}, {"LogSoftmax", "T", "axis:i", 1, kF}, {"Hardmax", "T", "axis:i", 1, kF},
    {"MatMul", "TT", "", 1, kNum}, {"Gemm", "TTt", "alpha:f beta:f transA:i transB:i", 1, kNum},
    {"Einsum", "TT", "equation:s", 1, kNum}, {"Det", "T", "", 1, kF},
    {"BatchNormalization", "TFFFF", "epsilon:f", 1, kF}, {"InstanceNormalization", "TFF", "epsilon:f", 1, kF},
    {"LayerNormalization", "TFf", "axis:i epsilon:f", 1, kF}, {"LRN", "T", "size:i alpha:f beta:f bias:f", 1, kF},
    {"MeanVarianceNormalization", "T", "axes:v", 1, kF},
    {"Conv", "TFf", "pads:v strides:v dilations:v group:i kernel_shape:v auto_pad:s", 1, kF},
    {"ConvTranspose", "TFf", "pads:v strides:v dilations:v group:i output_padding:v auto_pad:s", 1, kF},
    {"MaxPool", "T", "kernel_shape:v pads:v strides:v dilations:v ceil_mode:i auto_pad:s", 2, kF},
    {"AveragePool", "T", "kernel_shape:v pads:v strides:v ceil_mode:i count_include_pad:i auto_pad:s", 1, kF},
    {"LpPool", "T", "kernel_shape:v pads:v strides:v p:i", 1, kF}, {"GlobalMaxPool", "T", "", 1, kF},
    {"GlobalAveragePool", "T", "", 1, kF}, {"Resize", "Tfff", "mode:s coordinate_transformation_mode:s nearest_mode:s", 1, kF},
    {"GridSample", "TF", "mode:s padding_mode:s align_corners:i", 1, kF},
};

const char *const kStrings[] = {"", "constant", "reflect", "edge", "DCR", "CRD", "add", "mul", "max", "min", "none",
                                "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "nearest", "linear", "cubic",
                                "bilinear", "half_pixel", "align_corners", "asymmetric", "floor", "ceil", "zeros",
                                "border", "ij,jk->ik", "i,i->", "bij,bjk->bik", "ii->i", "...i,i->...", "ij->ji"};
const int kElementTypes[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::INT32, onnx::TensorProto::INT64,
                             onnx::TensorProto::BOOL};

std::int64_t smallInt(FuzzedDataProvider &in)
{
    if (in.ConsumeIntegralInRange(0, 15) == 0) // now and then an extreme: overflow, huge sizes
        return in.PickValueInArray({std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                    std::int64_t(1) << 31, std::int64_t(1) << 40, std::int64_t(-1) << 31});
    return in.ConsumeIntegralInRange<std::int64_t>(-3, 8);
}

std::vector<std::int64_t> randomShape(FuzzedDataProvider &in, int maxRank)
{
    std::vector<std::int64_t> dims(static_cast<std::size_t>(in.ConsumeIntegralInRange(0, maxRank)));
    std::int64_t count = 1;
    for (std::int64_t &d : dims) {
        d = in.ConsumeIntegralInRange<std::int64_t>(0, 4);
        if (count * std::max<std::int64_t>(d, 1) > 64)
            d = 1;
        count *= std::max<std::int64_t>(d, 1);
    }
    return dims;
}

// Fills `tensor` (type and dims already set) with values from the bytes.
void fillValues(FuzzedDataProvider &in, onnx::TensorProto &tensor, bool small)
{
    std::int64_t count = 1;
    for (std::int64_t d : tensor.dims())
        count *= d;
    for (std::int64_t k = 0; k < count; ++k) {
        switch (tensor.data_type()) {
        case onnx::TensorProto::FLOAT:
            tensor.add_float_data(in.ConsumeBool() ? static_cast<float>(in.ConsumeIntegralInRange(-4, 4))
                                                   : in.ConsumeFloatingPoint<float>());
            break;
        case onnx::TensorProto::INT32:
            tensor.add_int32_data(small ? static_cast<std::int32_t>(smallInt(in)) : in.ConsumeIntegral<std::int32_t>());
            break;
        case onnx::TensorProto::INT64:
            tensor.add_int64_data(small ? smallInt(in) : in.ConsumeIntegral<std::int64_t>());
            break;
        default:
            tensor.add_int32_data(in.ConsumeBool() ? 1 : 0);
        }
    }
}

void addAttribute(FuzzedDataProvider &in, onnx::NodeProto &node, const std::string &name, char kind)
{
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name);
    switch (kind) {
    case 'i':
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(name == "to" || name == "dtype" ? in.PickValueInArray(kElementTypes) : smallInt(in));
        break;
    case 'f':
        a.set_type(onnx::AttributeProto::FLOAT);
        a.set_f(in.ConsumeBool() ? static_cast<float>(in.ConsumeIntegralInRange(-2, 3)) * 0.5f : in.ConsumeFloatingPoint<float>());
        break;
    case 'v':
        a.set_type(onnx::AttributeProto::INTS);
        for (int k = 0, n = in.ConsumeIntegralInRange(0, 6); k < n; ++k)
            a.add_ints(smallInt(in));
        break;
    default:
        a.set_type(onnx::AttributeProto::STRING);
        a.set_s(in.PickValueInArray(kStrings));
    }
}

std::string buildModel(FuzzedDataProvider &in, runtime::NamedValues &feeds, std::string &op)
{
    const OpSpec &spec = in.PickValueInArray(kOps);
    op = spec.op;
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    onnx::GraphProto &graph = *model.mutable_graph();
    graph.set_name("fuzz");
    onnx::NodeProto &node = *graph.add_node();
    node.set_op_type(spec.op);
    node.set_name("node");

    int dataType = onnx::TensorProto::FLOAT;
    for (int pick = in.ConsumeIntegralInRange(0, 3), k = 0; k < 8; ++k)
        if (spec.types & (1u << ((pick + k) % 4))) {
            dataType = kElementTypes[(pick + k) % 4];
            break;
        }
    const std::vector<std::int64_t> base = randomShape(in, 4);
    for (int k = 0; k < static_cast<int>(std::strlen(spec.inputs)); ++k) {
        const char kind = spec.inputs[k];
        if (std::islower(static_cast<unsigned char>(kind))) { // optional: left out, named "", or given
            const int choice = in.ConsumeIntegralInRange(0, 2);
            if (choice == 0)
                break;
            if (choice == 1) {
                node.add_input("");
                continue;
            }
        }
        const std::string name = "in" + std::to_string(k);
        node.add_input(name);
        onnx::TensorProto tensor;
        tensor.set_name(name);
        const char upper = static_cast<char>(std::toupper(kind));
        tensor.set_data_type(upper == 'I' ? onnx::TensorProto::INT64 : upper == 'B' ? onnx::TensorProto::BOOL
                             : upper == 'F' ? onnx::TensorProto::FLOAT : dataType);
        std::vector<std::int64_t> dims = upper == 'S' ? std::vector<std::int64_t>{} : upper == 'I' ? randomShape(in, 1)
                                         : in.ConsumeBool() ? base : randomShape(in, 4);
        for (std::int64_t d : dims)
            tensor.add_dims(d);
        fillValues(in, tensor, upper == 'I');
        if (upper == 'I' ? in.ConsumeIntegralInRange(0, 3) != 0 : in.ConsumeBool()) {
            *graph.add_initializer() = std::move(tensor);
            continue;
        }
        onnx::ValueInfoProto &input = *graph.add_input();
        input.set_name(name);
        onnx::TypeProto_Tensor &type = *input.mutable_type()->mutable_tensor_type();
        type.set_elem_type(tensor.data_type());
        for (std::int64_t d : dims)
            type.mutable_shape()->add_dim()->set_dim_value(d);
        runtime::Tensor value = runtime::Tensor::zeros(tensor.data_type(), dims);
        const std::size_t count = static_cast<std::size_t>(value.size());
        if (count == 0) {
        } else if (tensor.data_type() == onnx::TensorProto::FLOAT)
            std::memcpy(value.mutableData<float>(), tensor.float_data().data(), count * sizeof(float));
        else if (tensor.data_type() == onnx::TensorProto::INT64)
            std::memcpy(value.mutableData<std::int64_t>(), tensor.int64_data().data(), count * sizeof(std::int64_t));
        else if (tensor.data_type() == onnx::TensorProto::INT32)
            std::memcpy(value.mutableData<std::int32_t>(), tensor.int32_data().data(), count * sizeof(std::int32_t));
        else
            for (std::size_t e = 0; e < count; ++e)
                value.mutableData<bool>()[e] = tensor.int32_data(static_cast<int>(e)) != 0;
        feeds.emplace_back(name, runtime::RuntimeValue::ofTensor(std::move(value)));
    }
    const std::string attributes = spec.attributes;
    for (std::size_t at = 0; at < attributes.size();) {
        const std::size_t end = std::min(attributes.find(' ', at), attributes.size());
        const std::string item = attributes.substr(at, end - at);
        if (in.ConsumeIntegralInRange(0, 3) != 0) // most attributes are set, some keep their default
            addAttribute(in, node, item.substr(0, item.size() - 2), item.back());
        at = end + 1;
    }
    for (int k = 0; k < spec.outputs; ++k) {
        node.add_output("out" + std::to_string(k));
        graph.add_output()->set_name("out" + std::to_string(k)); // types left to inference
    }
    return model.SerializeAsString();
}

void reportDisagreement(const std::string &what)
{
    static int reported = 0;
    const char *strict = std::getenv("PORTOLAN_FUZZ_STRICT_COMPARE");
    if (strict != nullptr && std::string(strict) == "1") {
        std::fprintf(stderr, "executors disagree: %s\n", what.c_str());
        std::abort();
    }
    if (reported++ < 20)
        std::fprintf(stderr, "[fuzz_run_graph] executors disagree: %s\n", what.c_str());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    spdlog::set_level(spdlog::level::off);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    runtime::NamedValues feeds;
    std::string op;
    const std::string bytes = buildModel(in, feeds, op);
    // Replaying a crash: PORTOLAN_FUZZ_DUMP_MODEL=FILE writes the model the bytes built (to keep it as
    // a hostile-corpus case, or to read it with portolan inspect).
    if (const char *dump = std::getenv("PORTOLAN_FUZZ_DUMP_MODEL"); dump != nullptr && *dump != '\0') {
        if (FILE *f = std::fopen(dump, "wb")) {
            std::fwrite(bytes.data(), 1, bytes.size(), f);
            std::fclose(f);
        }
    }
    auto loaded = ir::loadModelBytes(std::span(reinterpret_cast<const std::byte *>(bytes.data()), bytes.size()),
                                     "fuzz graph", "");
    if (!loaded)
        return 0;
    runtime::RunOptions options;
    options.maxMemoryBytes = std::size_t(256) << 20;
    options.maxLoopIterations = 10'000;
    auto reference = runtime::Interpreter(*loaded->model).run(feeds, options);
    runtime::cpu::CpuExecutor cpu(*loaded->model);
    auto compiled = cpu.run(feeds, options);
    if (!reference || !compiled || reference->size() != compiled->size())
        return 0;
    for (std::size_t k = 0; k < reference->size(); ++k) {
        const runtime::RuntimeValue &a = (*reference)[k].second, &b = (*compiled)[k].second;
        if (!a.isTensor() || !b.isTensor())
            continue;
        const compare::TensorMetrics m = compare::compareTensors(a.tensor, b.tensor, compare::Tolerance{1e-4, 1e-4});
        if (!m.mismatch.empty() || !m.passed)
            reportDisagreement(op + " output " + std::to_string(k) + ": " +
                               (m.mismatch.empty() ? "max |error| " + std::to_string(m.maxAbs) : m.mismatch));
    }
    return 0;
}
