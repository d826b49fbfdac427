// The CUDA kernels' launchers, callable from plain C++ (no CUDA headers): each enqueues its kernel
// on `stream` (a cudaStream_t) and returns at once. Tensors of floating-point values are stored as
// `Storage` says (a shape plan's precision: fp32, or fp16/bf16 rounded at every node boundary) and
// computed in fp32 inside each kernel; the executor checks the element types before it picks one.
#pragma once

#include "runtime/cuda/Launch.h"

#include <cstdint>
#include <string>

namespace portolan::runtime::cuda {

/// The functions the elementwise kernels and the matrix products' epilogues apply, with the
/// formulas of docs/portolan-ops.md (Activations) and of the ONNX ops of the same names.
enum class Function : std::uint8_t {
    Identity,
    Relu,
    LeakyRelu,   // p0 = α
    Elu,         // p0 = α
    Clip,        // p0 = lo, p1 = hi
    Sigmoid,
    HardSigmoid, // p0 = α, p1 = β
    HardSwish,
    Tanh,
    Gelu,
    GeluTanh,
    Exp,
    Log,
    Sqrt,
    Abs,
    Neg,
    Erf,
    Reciprocal,
};

/// How a shape plan stores its floating-point tensors on the device.
enum class Storage : std::uint8_t { F32, F16, BF16 };
inline int storageBytes(Storage s)
{
    return s == Storage::F32 ? 4 : 2;
}

struct FunctionSpec {
    Function kind = Function::Identity;
    float p0 = 0, p1 = 0;
};

enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Max, Min, Pow };

enum class CompareOp : std::uint8_t { Greater, Less, Equal, GreaterOrEqual, LessOrEqual };

/// out = in, from one storage type to another (rounded to nearest even when narrowing): the boundary
/// between a node kept at fp32 and its fp16/bf16 neighbours.
void launchConvertStorage(Storage from, Storage to, const void *in, void *out, std::int64_t count, int multiprocessors, void *stream);
/// out[i] = f(in[i]) over `count` values (in and out may be the same buffer).
void launchFunction(Storage s, FunctionSpec f, const void *in, void *out, std::int64_t count, int multiprocessors, void *stream);

/// out = f(a op b), broadcast as `plan` says.
void launchBinary(Storage s, BinaryOp op, FunctionSpec f, const void *a, const void *b, void *out, const BroadcastPlan &plan,
                  int multiprocessors, void *stream);

/// Softmax along rows of `width` contiguous values.
void launchSoftmax(Storage s, const void *in, void *out, std::int64_t rows, std::int64_t width, void *stream);

/// y = (s − mean(s)) / sqrt(var(s) + ε) · gamma + beta per row, where s = x (+ skip) (+ bias); the
/// sum s is also written to `sum` when it is not null (SkipLayerNormalization's second output).
/// `skip`, `bias`, `beta` and `sum` may be null. Means and variances in float over the row, the
/// variance as the mean of squared deviations (two passes over registers and shared memory).
struct LayerNormArgs {
    const void *x = nullptr, *skip = nullptr, *bias = nullptr, *gamma = nullptr, *beta = nullptr;
    void *y = nullptr, *sum = nullptr;
    std::int64_t rows = 0, width = 0;
    float epsilon = 1e-5f;
};
void launchLayerNorm(Storage s, const LayerNormArgs &args, void *stream);

/// A matrix product's epilogue where cuBLASLt has none: y[r, c] = f(y[r, c] + bias[c]) over `rows`
/// rows of `width` (bias may be null).
void launchBiasFunction(Storage s, void *y, const void *bias, std::int64_t rows, std::int64_t width, FunctionSpec f,
                        int multiprocessors, void *stream);

/// A convolution's epilogue: y[i] = f(y[i] + bias[channel of i] + residual[i]) over an [N, C, spatial…]
/// tensor (`bias` and `residual` may be null).
void launchChannelEpilogue(Storage s, void *y, const void *bias, const void *residual, std::int64_t count, std::int64_t channels,
                           std::int64_t spatial, FunctionSpec f, int multiprocessors, void *stream);

/// int8 quantization, the CPU executor's (runtime/cuda/Int8Operands.h): q = round-half-even(x /
/// scale) clamped to ±127, 0 where the scale is not positive (a range of zeros) or x is NaN.
/// out[b][r][c] = q(in[b][r][c]) over `batch` float matrices of `rows` × `cols` as written, or with
/// `transpose` q(in[b][c][r]) (in is then [batch][cols][rows]; read through 32×32 shared tiles).
void launchQuantizeInt8(const float *in, std::int8_t *out, std::int64_t batch, std::int64_t rows, std::int64_t cols, bool transpose,
                        float scale, int multiprocessors, void *stream);
/// out[i] = q(in[i]) · scale: the value an int8 operand stands for, where the node's math stays fp32.
void launchFakeQuantize(const float *in, float *out, std::int64_t count, float scale, int multiprocessors, void *stream);

/// QuantizeLinear and DequantizeLinear with the reference's arithmetic, per tensor or per channel of
/// an axis (element i takes the parameters at (i / inner) % channels):
/// quantizing, y = saturate(round-half-even(x / scale) + zero point) as int8 or uint8;
/// dequantizing, y = (x − zero point) · scale from int8, uint8 or int32.
/// The float side (x quantizing, y dequantizing) and the scale are stored as the launch's Storage
/// says; the zero point, when given, has the quantized type.
struct QuantizeLinearArgs {
    enum class Type : std::uint8_t { Int8, Uint8, Int32 };
    const void *in = nullptr, *scale = nullptr, *zeroPoint = nullptr;
    void *out = nullptr;
    Type quantized = Type::Uint8;
    bool dequantize = false;
    bool zeroPointPerChannel = false;
    std::int64_t count = 0, inner = 1, channels = 1; ///< channels 1: one scale for the whole tensor
};
void launchQuantizeLinear(Storage s, const QuantizeLinearArgs &args, int multiprocessors, void *stream);

/// An int8 product's epilogue, in place over the int32 accumulators cuBLASLt wrote where the float
/// output goes: y[r, c] = f(acc[r, c] · columnScale[c] + beta · bias[c] + beta · matrix[r, c]), with
/// `bias` and `matrix` optional (null).
struct DequantizeArgs {
    void *y = nullptr;
    const float *columnScale = nullptr, *bias = nullptr, *matrix = nullptr;
    float beta = 1;
    std::int64_t rows = 0, cols = 0;
    FunctionSpec f;
};
void launchDequantizeProduct(const DequantizeArgs &args, int multiprocessors, void *stream);

/// out[r] = the mean (or the max) of row r's `width` contiguous floats: global pooling.
void launchRowReduce(Storage s, const void *in, void *out, std::int64_t rows, std::int64_t width, bool max, void *stream);

/// Scaled dot-product attention (ai.portolan Attention, docs/portolan-ops.md), fused: each query row
/// walks its keys once with an online softmax (running max and sum), never storing the scores.
/// Logical layout [outer, N, S, D]; `sequenceFirst` (SND) stores S before N. The mask, when given,
/// is read at maskBase(outer·N index) + i·maskStrideI + j·maskStrideJ, its leading dims broadcast.
struct AttentionArgs {
    static constexpr int kMaxHeadDim = 256;
    static constexpr int kMaxLeadDims = 4;
    const void *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr;
    void *y = nullptr;
    std::int64_t outer = 1, heads = 1, sq = 0, sk = 0, d = 0, dv = 0;
    bool sequenceFirst = false, causal = false;
    float scale = 1.f;
    int maskLeadRank = 0; ///< the scores' leading dims [outer…, N], innermost last
    std::int64_t maskLeadDims[kMaxLeadDims] = {}, maskLeadStrides[kMaxLeadDims] = {};
    std::int64_t maskStrideI = 0, maskStrideJ = 0;
};
void launchAttention(Storage s, const AttentionArgs &args, void *stream);
/// Whether the tiled tensor-core kernel takes `args` at storage `s` on the current device (and
/// readies it for its shared memory), or why not.
bool prepareTiledAttention(Storage s, const AttentionArgs &args, std::string &whyNot);
void launchTiledAttention(Storage s, const AttentionArgs &args, void *stream);

/// dst[copy.dstBase + b] = src[copy.srcBase + a] over the copy's walk, of `elementBytes` (2 or 4) each.
void launchStridedCopy(int elementBytes, const void *src, void *dst, const StridedCopy &copy, int multiprocessors, void *stream);

/// A fused elementwise chain (ai.portolan FusedElementwise) as a small register program, run once
/// per output element: the inputs are loaded through their broadcast strides into registers 0…n−1,
/// each instruction writes one new register, booleans are 0 and 1. One kernel per chain: every
/// intermediate stays in registers.
struct ElementwiseProgram {
    static constexpr int kMaxInputs = MultiBroadcast::kMaxOperands, kMaxRegisters = 32, kMaxInstructions = 48;
    enum class Op : std::uint8_t { Function, Binary, Compare, Not, And, Or, Xor, Where, Constant };
    struct Instruction {
        Op op = Op::Constant;
        std::uint8_t dst = 0, a = 0, b = 0, c = 0;
        FunctionSpec function;   ///< Op::Function; Op::Constant keeps its value in function.p0
        BinaryOp binary = BinaryOp::Add;
        CompareOp compare = CompareOp::Equal;
    };
    int inputs = 0, instructions = 0, result = 0;
    Instruction code[kMaxInstructions];
    MultiBroadcast walk; ///< the output in order, each input through its own strides
};
void launchElementwiseProgram(Storage s, const ElementwiseProgram &program, const void *const *inputs, void *out,
                              int multiprocessors, void *stream);

} // namespace portolan::runtime::cuda
