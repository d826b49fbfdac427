// The ai.portolan operator domain: the fused ops Portolan's passes create where ONNX (at opset 17)
// has no standard op. Registered with ONNX's schema registry so the checker and shape inference
// accept them; documented in docs/portolan-ops.md; run by the reference interpreter's kernels.
#pragma once

namespace portolan::opset {

inline constexpr const char *kPortolanDomain = "ai.portolan";
inline constexpr int kPortolanDomainVersion = 1;

/// Registers every ai.portolan schema, and the standard ones of opsets 18–27 (StandardSchemas.h),
/// once (thread-safe; later calls do nothing).
void registerPortolanSchemas();

// One function per op family, each in its own file.
/// FusedConv, FusedGemm, FusedMatMul, FusedElementwise (FusedLinearSchemas.cpp).
void registerFusedLinearSchemas();
/// LayerNormalization, SkipLayerNormalization, Attention (FusedTransformerSchemas.cpp).
void registerFusedTransformerSchemas();
/// Gelu, RMSNormalization (ActivationSchemas.cpp).
void registerActivationSchemas();

} // namespace portolan::opset
