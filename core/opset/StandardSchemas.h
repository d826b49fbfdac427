// Portolan's own schemas for the standard (ai.onnx) operator versions of opsets 18 to 27, which
// libonnx 1.12 (opset 17) lacks. They are registered in libonnx's schema registry, so one lookup
// answers for every opset from 1 to 27 and the checker, shape inference, the arity and attribute
// gate and the operator documentation all read the same schema.
//
// Versions marked "Types" in StandardOpVersions.def only widened their element types: they are the
// previous version's schema again under the new since-version. Versions marked "New" or "Semantics"
// are written out in the family files below, with inference functions of their own. Element types
// libonnx cannot name (float8, int4, int2, float4, float8e8m0) are left out of the type
// constraints; Portolan's element-type gate judges those.
#pragma once

#include <onnx/defs/schema.h>

#include <optional>
#include <string>
#include <vector>

namespace portolan::opset {

/// Widens libonnx's standard-domain version range to 27 and registers every schema of opsets 18–27,
/// once per process (thread-safe; later calls do nothing). registerPortolanSchemas() calls it.
void registerStandardSchemas();

/// The types ONNX's Changelog allows for type constraint `name` of standard op version `op`-`since`
/// (18 to 27), the narrow types included ("tensor(float8e4m3fn)"…); nullopt when the table has no
/// such constraint (versions up to 17: libonnx's schema has the list, and no narrow type is in it).
std::optional<std::vector<std::string>> standardTypeConstraint(const std::string &op, int since, const std::string &name);

/// Puts checks before the libonnx inference functions that would crash on what they read (ranks,
/// blocksize; HardenedInference.cpp); a failed check fails inference for that node with a message. Called once, by
/// registerPortolanSchemas, before any inference runs.
void hardenLibOnnxInference();

/// The versions of StandardOpVersions.def the registry lacks after registration, as "Op-Version":
/// a New or Semantics version nobody wrote a schema for, or a schema libonnx refused.
std::vector<std::string> missingStandardSchemas();

// One family per pair of files; each returns complete schemas (domain "", since-version set, inputs,
// outputs, attributes, type constraints, documentation, type and shape inference). A family's first
// file returns its second file's schemas (the "2" function) after its own. Helpers the files share
// are in SchemaInference.h.
/// Reductions, Split, Pad, Scatter*, CenterCropPad, Col2Im, Bitwise*, CumProd (StandardSchemasTensor.cpp).
std::vector<onnx::OpSchema> tensorOpSchemas();
/// Pooling, Resize, GroupNormalization, DeformConv, AffineGrid, GridSample, DFT, ImageDecoder,
/// Mish, Gelu, Swish, CausalConvWithState (StandardSchemasVision.cpp).
std::vector<onnx::OpSchema> visionOpSchemas();
/// Cast, CastLike, QuantizeLinear, DequantizeLinear, BitCast, Range (StandardSchemasConversion.cpp).
std::vector<onnx::OpSchema> conversionOpSchemas();
/// OptionalGetElement, OptionalHasElement and the string ops (StandardSchemasText.cpp, one file).
std::vector<onnx::OpSchema> textAndOptionalOpSchemas();
/// Attention, RMSNormalization, RotaryEmbedding, LinearAttention, TensorScatter
/// (StandardSchemasTransformer.cpp).
std::vector<onnx::OpSchema> transformerOpSchemas();

// The second halves, for the functions above.
/// CenterCropPad, Col2Im, Bitwise*, CumProd (StandardSchemasTensor2.cpp).
std::vector<onnx::OpSchema> tensorOpSchemas2();
/// AffineGrid, GridSample, DFT, ImageDecoder, Mish, Gelu, Swish, CausalConvWithState (StandardSchemasVision2.cpp).
std::vector<onnx::OpSchema> visionOpSchemas2();
/// QuantizeLinear, DequantizeLinear (StandardSchemasConversion2.cpp).
std::vector<onnx::OpSchema> conversionOpSchemas2();
/// RMSNormalization, RotaryEmbedding, TensorScatter, LinearAttention (StandardSchemasTransformer2.cpp).
std::vector<onnx::OpSchema> transformerOpSchemas2();

} // namespace portolan::opset
