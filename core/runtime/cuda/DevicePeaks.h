// What the GPU does at best, measured on it: the copy bandwidth and the matrix-product rate that
// `--stats` holds each node's bytes and FLOPs per second against (a kernel at 80% of the copy
// bandwidth has little left to gain; one at 5% of it, and of the product rate, is the one to fix).
#pragma once

#include "support/Expected.h"

#include <string>

namespace portolan::runtime::cuda {

struct DevicePeaks {
    double copyBytesPerSecond = 0;   ///< cudaMemcpy device to device of 256 MiB: bytes read plus written per second
    double memoryBytesPerSecond = 0; ///< the memory's rate on paper: 2 transfers a clock × bus width (0 when unknown)
    /// A 4096³ MatMul of two activations through the executor's own kernel at `precision` (int8: both
    /// quantized on the device, the int32 product dequantized: the node's whole time)
    double matmulFlopsPerSecond = 0;
    std::string precision;           ///< the executor's: "fp32", "fp16", "bf16" or "int8"
};

/// Measures device 0 (best of three each, some tens of milliseconds on a current GPU, plus cuBLASLt's
/// set-up), once per precision for the process. Fails, saying why, without a GPU.
support::Expected<DevicePeaks> measureDevicePeaks(const std::string &precision);

} // namespace portolan::runtime::cuda
