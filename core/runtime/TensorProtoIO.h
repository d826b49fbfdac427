// Conversion between runtime values and ONNX's TensorProto / SequenceProto / OptionalProto (the
// .pb files of ONNX's backend-test layout are Portolan's exchange format).
#pragma once

#include "ir/Value.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"

#include <onnx/onnx-data.pb.h>

#include <string>

namespace portolan::runtime {

/// A tensor from a TensorProto (raw or typed data; viewed in place when `owner` keeps `proto` alive
/// and the bytes are aligned). External data must have been resolved: pass its bytes in `external`.
support::Expected<Tensor> tensorFromProto(const onnx::TensorProto &proto, std::shared_ptr<const void> owner = {},
                                          std::span<const std::byte> external = {});
/// The tensor of an initializer (views mapped external data without copying).
support::Expected<Tensor> tensorFromInitializer(const std::shared_ptr<const ir::Initializer> &initializer);

/// Raw-data TensorProto named `name`.
onnx::TensorProto tensorToProto(const Tensor &tensor, const std::string &name);

/// Reads a .pb file holding a TensorProto, SequenceProto or OptionalProto; `type` (the graph
/// input's declared type, may be empty) says which to expect.
support::Expected<RuntimeValue> readValueFile(const std::string &path, const onnx::TypeProto &type);
/// Writes a value as a .pb file (TensorProto, SequenceProto or OptionalProto); refuses to overwrite
/// unless `overwrite`.
support::Status writeValueFile(const RuntimeValue &value, const std::string &name, const std::string &path,
                               bool overwrite);
/// The name stored in a .pb file ("" when none), without converting the data.
std::string valueFileName(const std::string &path, const onnx::TypeProto &type);

} // namespace portolan::runtime
