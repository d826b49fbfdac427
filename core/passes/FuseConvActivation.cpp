// fuse-conv-activation: fold the activation after a Conv (or an activation-free FusedConv) into FusedConv.
//
//   Before: X, W, B → Conv → t → Relu → Y
//   After:  X, W, B → FusedConv{activation=Relu} → Y
//
// Y = act(Conv(X, W) + B (+ Z)). Activations: Relu, Clip (constant min/max), LeakyRelu, Sigmoid,
// HardSigmoid, HardSwish, Tanh. Conditions: the Conv output has no other consumer and is no graph
// output; a FusedConv that already has an activation is left alone. Creates an ai.portolan op, so
// it declines in standard-only mode.
#include "passes/ActivationMatch.h"
#include "passes/Pass.h"

namespace portolan::passes {

support::Status FuseConvActivation::run(PassContext &cx)
{
    static const std::vector<std::string> convAttributes{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
    static const std::vector<ActivationHost> hosts{
        {"Conv", "", "FusedConv", convAttributes},
        {"FusedConv", "ai.portolan", "FusedConv", convAttributes},
    };
    return fuseActivations(cx, hosts, /*withGelu=*/false, "conv-activation");
}

} // namespace portolan::passes
