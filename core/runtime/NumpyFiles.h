// NumPy's exchange formats, as other runtimes' tools dump tensors: `.npy` (one array) and `.npz`
// (a zip of `.npy` files, stored by np.savez or deflated by np.savez_compressed).
#pragma once

#include "ir/Value.h"
#include "runtime/RuntimeValue.h"
#include "runtime/Tensor.h"
#include "support/Expected.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace portolan::runtime {

/// A tensor from the bytes of a `.npy` file (format 1.0–3.0, little-endian, C order); errors name `where`.
support::Expected<runtime::Tensor> parseNpy(std::string_view bytes, const std::string &where);
support::Expected<runtime::Tensor> readNpyFile(const std::string &path);

/// Writes `tensor` as a `.npy` file (format 1.0); element types NumPy lacks (bfloat16, strings) are refused.
support::Status writeNpyFile(const runtime::Tensor &tensor, const std::string &path);

/// The arrays of a `.npz` archive in archive order, keyed as np.load keys them (the entry's name
/// without ".npy"). Zip64 archives (numpy writes them) are read; encrypted or other compression
/// methods are refused by name.
support::Expected<std::vector<std::pair<std::string, runtime::Tensor>>> readNpzFile(const std::string &path);

/// A graph input's feed from a file: `.npy` (checked against the input's declared element type),
/// else a `.pb` TensorProto/SequenceProto/OptionalProto. Errors name the file and the input.
support::Expected<runtime::RuntimeValue> readFeedFile(const std::string &path, const ir::Value &input);
/// The input a feed file is for by its own say: a .pb's stored name, a .npy's %-decoded file name.
std::string feedFileName(const std::string &path);

/// "%2F" and the like decoded: how a tensor name that is no file name ("/layer1/Relu_output_0") is
/// spelled as one (`layer1%2FRelu_output_0.npy`).
std::string percentDecoded(const std::string &text);
/// The inverse: every byte but letters, digits and "-._" escaped.
std::string percentEncoded(const std::string &text);

} // namespace portolan::runtime
