// Which activations a fused op (FusedConv, FusedGemm, FusedMatMul) can absorb, read from the
// activation node, and the shared "producer + activation → fused producer" rewrite of
// fuse-conv-activation and fuse-gemm-activation.
#pragma once

#include "ir/Model.h"
#include "passes/Pass.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace portolan::passes {

/// An activation as the fused ops' `activation` / `activation_params` attributes spell it.
struct FusedActivation {
    std::string name;          ///< Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Gelu, GeluTanh
    std::vector<float> params; ///< LeakyRelu [alpha], HardSigmoid [alpha, beta], Clip [min, max]
};

/// Whether `node` is an op the fused ops know as an activation (Gelu only when `withGelu`).
bool isActivationOp(const ir::Node &node, bool withGelu);

/// The activation `node` computes, or nullopt with `why` set ("Clip max is not a constant").
/// Requires isActivationOp(node, withGelu).
std::optional<FusedActivation> readActivation(const ir::Model &model, const ir::Node &node, std::string &why);

/// The `activation` and `activation_params` attributes.
std::vector<onnx::AttributeProto> activationAttributes(const FusedActivation &activation);

/// One producer kind an activation can be folded into.
struct ActivationHost {
    std::string opType;          ///< "Conv", "FusedConv", "Gemm", "FusedMatMul"
    std::string domain;          ///< "" or "ai.portolan"
    std::string fusedOp;         ///< what it becomes: "FusedConv", "FusedGemm", "FusedMatMul"
    std::vector<std::string> keptAttributes; ///< attributes carried over from the producer
};

/// For every activation node (isActivationOp(·, withGelu)) whose input is produced by one of
/// `hosts`: folds it into a fused node, or reports why not. Shared by fuse-conv-activation and
/// fuse-gemm-activation.
support::Status fuseActivations(PassContext &cx, const std::vector<ActivationHost> &hosts, bool withGelu,
                                const std::string &pattern);

} // namespace portolan::passes
