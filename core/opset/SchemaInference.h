// Helpers the standard-domain schema families (StandardSchemas*.cpp) share: type lists and the small
// pieces of their type and shape inference. A helper only one file uses stays in that file.
//
// libonnx 1.12 gives an inference function no way to tell an omitted optional input (empty name)
// from a named input whose type is not known yet: both read as a null type. Only an index past the
// node's input list is surely absent (inputListed); the other presence tests below say what they
// take as "given".
#pragma once

#include <onnx/defs/schema.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace portolan::opset {

// The onnx names the family files use unqualified.
using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;
using onnx::TensorProto;
using onnx::TensorShapeProto;
using Dim = onnx::TensorShapeProto::Dimension;

// Shorthands for the differentiation category of an input or output.
inline constexpr auto kDiff = OpSchema::Differentiable;
inline constexpr auto kNonDiff = OpSchema::NonDifferentiable;

// ---- type lists

/// Every element type libonnx can name (the spec's "all tensor types" of IR 4).
const std::vector<std::string> &allTensorTypes();
/// The eight integer types, uint8 to int64.
const std::vector<std::string> &integerTypes();
/// float16, float and double (floatTypes() without bfloat16).
const std::vector<std::string> &ieeeFloatTypes();

// ---- inputs

/// Whether the node lists input `i` at all (perhaps as "", which reads like an input of unknown type).
bool inputListed(const InferenceContext &ctx, std::size_t i);
/// Whether input `i` is listed and has a type or constant data (an input left out as "" has neither).
bool hasInput(InferenceContext &ctx, std::size_t i);
/// Whether input `i` is listed and its type is known (set to some kind of value).
bool hasTypedInput(InferenceContext &ctx, std::size_t i);
/// Input `i`'s shape when it is a tensor of known rank, else null.
const TensorShapeProto *shapeOf(InferenceContext &ctx, std::size_t i);
/// A constant int32/int64 input's values; nullopt when not constant, or of another type unless `op` is given (fails).
std::optional<std::vector<std::int64_t>> constantInts(InferenceContext &ctx, std::size_t i, const char *op = nullptr,
                                                      const char *input = nullptr);
/// A 1-D integer input's values known before running: a constant, or data propagation's (maybe symbolic) result.
std::optional<TensorShapeProto> knownIntValues(InferenceContext &ctx, std::size_t i);

// ---- attributes

/// String attribute `name` (`fallback` when absent); fails unless it is one of `allowed`.
std::string stringAttrOneOf(InferenceContext &ctx, const char *op, const char *name, const char *fallback,
                            std::initializer_list<const char *> allowed);
/// A positive head-count attribute, or 0 when absent.
std::int64_t headsAttr(InferenceContext &ctx, const char *name, const char *op);
/// Fails when INT attribute `attr`, if set, names no floating-point type (float, float16, double, bfloat16).
void checkFloatPrecision(InferenceContext &ctx, const char *attr, const char *op);

// ---- outputs

/// Output 0 takes input 0's element type and, when known, its shape.
void propagateTypeAndShape(InferenceContext &ctx);
/// Output `out` takes the element type of the first input of `from` whose element type is known.
void elemTypeFrom(InferenceContext &ctx, std::initializer_list<std::size_t> from, std::size_t out);
/// Output `out`, when the node has it, gets the shape `dims`.
void setShape(InferenceContext &ctx, std::size_t out, std::initializer_list<Dim> dims);

// ---- axes and dims

/// Checks axes against the rank and makes them non-negative; `allowRepeats`: an axis may be named twice (reductions).
void normalizeAxes(std::vector<std::int64_t> &axes, int rank, const char *op, const char *what, bool allowRepeats);
/// A dim of static value `v`.
Dim valueDim(std::int64_t v);
/// d / n for a packed heads·size dim; a static d must be a multiple of n.
Dim divided(const Dim &d, std::int64_t n, const char *op, const char *what);
/// d · n; unknown when d is not static (and n is not 1).
Dim times(const Dim &d, std::int64_t n);
/// Unifies two views of one dim into `into`, keeping the more informative; unequal values fail "op: conflict (a vs b)".
void mergeDim(Dim &into, const Dim &other, const char *op, const char *conflict);
/// Fails when `have` is static and neither `want` (when static) nor, if `orOne`, 1.
void expectDim(const Dim &have, const Dim &want, bool orOne, const char *op, const char *what);
/// Fails when `shape` is known and not of rank `rank`.
void expectRank(const TensorShapeProto *shape, int rank, const char *op, const char *input);

} // namespace portolan::opset
