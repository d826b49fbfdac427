// Inputs and expected outputs in ONNX's backend-test layout: test_data_set_N/input_K.pb, output_K.pb.
#pragma once

#include "ir/Model.h"
#include "runtime/Executor.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace portolan::runtime {

/// The `prefix`_K.pb files of `dir` ("input", "output"), ordered by K.
std::vector<std::string> testDataFiles(const std::string &dir, const std::string &prefix);

/// Feeds from `dir`'s input_K.pb: the K-th file goes to the K-th input without an initializer, unless
/// the file names its tensor after another input (models whose optional inputs are left out).
support::Expected<NamedValues> readTestDataInputs(const ir::Model &model, const std::string &dir);

/// `dir`'s output_K.pb, one per graph output, typed by the model's declared outputs.
support::Expected<NamedValues> readTestDataOutputs(const ir::Model &model, const std::string &dir);

} // namespace portolan::runtime
