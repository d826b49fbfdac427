// Precision policies of the compiled executors (CPU and CUDA): which precision each node runs at, and the
// rounding that emulates it. A node lowered to fp16/bf16 reads its weights and activations rounded
// to that type and stores its float outputs rounded to it, while its kernel accumulates in fp32 —
// numerically what a tensor-core target computes, on fp32 host storage. An int8 node (Conv,
// MatMul, Gemm and their fused forms) reads QDQ-quantized operands: weights symmetric per output
// channel, activations symmetric per tensor at a calibrated scale; its output stays fp32.
#pragma once

#include "ir/Model.h"
#include "runtime/Tensor.h"
#include "support/Expected.h"

#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace portolan::runtime {

class CalibrationTable;

enum class Precision { Fp32, Fp16, Bf16, Int8 };

const char *precisionName(Precision precision);
support::Expected<Precision> parsePrecision(const std::string &text);

/// One `--keep-fp32` rule: `op:TYPE[,TYPE…]`, `group:NAME` (an op family, see keepGroups()),
/// `node:NAME` (exactly that node) or a regex searched in the node name (optionally `name:REGEX`).
struct KeepFp32Rule {
    enum class Kind { NameRegex, OpType, Group, Node };
    Kind kind = Kind::NameRegex;
    std::string text; ///< as the user wrote it, for the reason shown per node
    std::vector<std::string> opTypes; ///< OpType and Group: the op types it keeps
    std::string nodeName;             ///< Node: the node it keeps
    std::regex regex;

    static support::Expected<KeepFp32Rule> parse(const std::string &text);
    bool matches(const ir::Node &node) const;
};

/// The op families `group:` names: "normalization", "softmax", "attention", "activation",
/// "elementwise", "reduction", "pooling", "conv", "matmul".
std::vector<std::string> keepGroups();

struct PrecisionPolicy {
    Precision precision = Precision::Fp32;
    std::vector<KeepFp32Rule> keepFp32;
    /// int8: the activation ranges (required then); shared so shape plans can outlive the caller's copy.
    std::shared_ptr<const CalibrationTable> calibration;
};

/// The precision `node` runs at under `policy`, and why it is not the policy's when it is not.
struct NodePrecision {
    Precision precision = Precision::Fp32;
    std::string why;
};
NodePrecision choosePrecision(const ir::Node &node, const PrecisionPolicy &policy);

/// Ops that only move or select data: exact at any precision, so they neither round nor count as
/// a precision boundary; their outputs keep their inputs' precision.
bool movesDataOnly(const ir::Node &node);

/// Int8 ops: which inputs are quantized (data and weight operands), and the weight's channel axis.
bool isQuantizable(const ir::Node &node);
bool isQuantizedInput(const ir::Node &node, std::size_t input);
/// The calibrated per-tensor scale of `node`'s non-constant input `input` under an int8 `policy`, or
/// an error naming the tensor when the table lacks it.
support::Expected<float> calibratedScale(const ir::Model &model, const ir::Node &node, std::size_t input, const PrecisionPolicy &policy);
/// The output-channel axis of a weight of `shape` read as input 1 of `node`.
std::size_t weightChannelAxis(const ir::Node &node, const Shape &shape);

/// Rounds every element of a float32 tensor to fp16 or bf16 (round to nearest even; fp16 saturates
/// to ±inf past 65504, as a real fp16 store does), in place.
void roundFloats(Tensor &tensor, Precision precision);
/// Quantizes and dequantizes a float32 tensor in place: round(x / scale) clamped to ±127, times scale.
void fakeQuantize(Tensor &tensor, float scale);
/// A copy of a float32 weight quantized symmetrically per channel of `axis` (scale = max|w| / 127).
Tensor fakeQuantizePerChannel(const Tensor &weight, std::size_t axis);

} // namespace portolan::runtime
