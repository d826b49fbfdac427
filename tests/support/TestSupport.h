// Shared test helpers: fixture paths, models written in ONNX text syntax, synthetic big graphs.
#pragma once

#include "ir/ModelLoader.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace portolan::test {

/// tests/data/models (the PyTorch fixtures).
std::string fixturesDir();
/// Debian's libonnx-testdata (ONNX's backend test suite); "" when not installed.
std::string onnxTestDataDir();
/// Every model.onnx below onnxTestDataDir(), sorted.
std::vector<std::string> onnxTestDataModels();
/// The fixture names (cnn_bn, transformer_opset14, …).
std::vector<std::string> fixtureNames();

/// Parses ONNX text syntax (onnx/defs/parser.h); aborts the test binary on a syntax error (a bug in the test).
onnx::ModelProto parseModelText(const char *text);
/// Serializes then loads through the public byte loader, as a file would be.
support::Expected<ir::LoadedModel> loadModelText(const char *text);
/// Deterministic serialization of a proto (protobuf's own, field order canonical).
std::string canonicalBytes(const google::protobuf::Message &message);

/// A synthetic transformer-like model with `layers` scoped blocks of ~`nodesPerLayer` nodes each
/// ("/encoder/layer.N/attn/MatMul"), for scale tests and benchmarks. Weights are tiny.
onnx::ModelProto syntheticModel(int layers, int nodesPerLayer);

} // namespace portolan::test
