// fuse-gemm-activation: fold the activation after a Gemm into FusedGemm, or after a FusedMatMul into it.
//
//   Before: A, B, C → Gemm → t → Gelu → Y          A, B, Bias → FusedMatMul → t → Relu → Y
//   After:  A, B, C → FusedGemm{activation=Gelu} → Y   A, B, Bias → FusedMatMul{activation=Relu} → Y
//
// FusedGemm: Y = act(alpha · A' · B' + beta · C); FusedMatMul: Y = act(MatMul(A, B) + Bias).
// Activations: Relu, Clip (constant min/max), LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, and
// Gelu (ai.portolan::Gelu or standard Gelu; approximate "none" → Gelu, "tanh" → GeluTanh).
// Conditions: the product has no other consumer and is no graph output; a FusedMatMul that already
// has an activation is left alone. Creates ai.portolan ops, so it declines in standard-only mode.
#include "passes/ActivationMatch.h"
#include "passes/Pass.h"

namespace portolan::passes {

support::Status FuseGemmActivation::run(PassContext &cx)
{
    static const std::vector<ActivationHost> hosts{
        {"Gemm", "", "FusedGemm", {"alpha", "beta", "transA", "transB"}},
        {"FusedMatMul", "ai.portolan", "FusedMatMul", {}},
    };
    return fuseActivations(cx, hosts, /*withGelu=*/true, "gemm-activation");
}

} // namespace portolan::passes
