// Int8 calibration: the range of every activation an int8 node quantizes, measured by running the
// graph at fp32 on calibration batches, reduced to a clipping threshold (min-max: the largest |x|
// seen; percentile: the P-th percentile of |x| over all batches, from a histogram), and kept in a
// text table that can be saved, reviewed and loaded again.
#pragma once

#include "ir/Model.h"
#include "runtime/CalibrationTable.h"
#include "runtime/Executor.h"
#include "support/Expected.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace portolan::runtime::cpu {

/// The tensors int8 quantizes per tensor: the non-constant data and weight operands of the main
/// graph's Conv, MatMul and Gemm nodes (fused forms included).
std::vector<std::string> quantizedActivations(const ir::Model &model);

/// One calibration batch: feeds for the main graph's inputs, and where they came from (for errors).
struct CalibrationBatch {
    std::string source;
    NamedValues feeds;
};

/// Batches from `dir`: its input_K.pb files as one batch, or else each subfolder holding such files
/// (test_data_set_0, test_data_set_1…, in name order) as a batch.
support::Expected<std::vector<CalibrationBatch>> readCalibrationBatches(const ir::Model &model, const std::string &dir);

/// `count` batches of random inputs, batch b by the seed rule of runtime/Feeds.h; symbolic dims come from `shapes`.
support::Expected<std::vector<CalibrationBatch>> randomCalibrationBatches(const ir::Model &model, int count, std::uint64_t seed,
                                                                          const std::map<std::string, Shape> &shapes);
/// The batches `spec` names: "random:N[:SEED]" (seeded random inputs, dims of symbolic inputs from
/// `shapes`) or a folder of test_data_set_N folders.
support::Expected<std::vector<CalibrationBatch>> calibrationBatches(const std::string &spec, const ir::Model &model,
                                                                    const std::map<std::string, Shape> &shapes);

/// Runs `model` at fp32 on the compiled executor over every batch and measures quantizedActivations().
/// A batch whose inputs do not fit the model fails naming the batch and the input.
support::Expected<CalibrationTable> calibrate(const ir::Model &model, const std::vector<CalibrationBatch> &batches,
                                              const CalibrationSettings &settings, const RunOptions &options = {});

} // namespace portolan::runtime::cpu
