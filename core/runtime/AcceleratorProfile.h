// What an accelerator's executor measured of its last run (the CUDA executor's, through the
// plugged-executor interface too), for `run --stats`, the port report and the workbench: the device
// and its measured peaks, memory and transfers, and each node's implementation, precision, time,
// and the bytes and FLOPs it moves and computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace portolan::runtime {

struct AcceleratorNode {
    std::string name, opType;
    std::string implementation; ///< the kernel's ("cudnn:conv"…), or "cpu-fallback"
    std::string whyFallback;    ///< for a fallback: why no device kernel applies
    std::string precision, whyPrecision;
    double milliseconds = 0;    ///< per run: device time, host time for a fallback; 0 when not profiled
    std::uint64_t bytes = 0;    ///< per run: what a device kernel reads and writes once
    std::int64_t flops = 0;     ///< per run

    bool onHost() const { return implementation == "cpu-fallback"; }
};

struct AcceleratorProfile {
    std::string device, precision;
    /// Peaks measured on the device (0 when not measured, `whyNoPeaks` says why): the copy bandwidth,
    /// the memory's rate on paper, and a large matrix product's rate at `precision`.
    double copyBytesPerSecond = 0, memoryBytesPerSecond = 0, matmulFlopsPerSecond = 0;
    std::string whyNoPeaks;
    std::uint64_t arenaBytes = 0, weightBytes = 0;
    std::uint64_t uploads = 0, uploadBytes = 0, downloads = 0, downloadBytes = 0;
    bool graphReplay = false; ///< the run replayed one captured graph
    std::string whyNoGraph;   ///< when it did not and could have been captured: why not
    std::vector<AcceleratorNode> nodes; ///< in run order

    /// A node's bytes and FLOPs per second of its time, and their shares of the peaks (0 where unknown).
    struct Rates {
        double bytesPerSecond = 0, flopsPerSecond = 0, bandwidthShare = 0, flopsShare = 0;
    };
    Rates ratesOf(const AcceleratorNode &node) const;
    /// The nodes by time, longest first (ties in run order).
    std::vector<AcceleratorNode> byTime() const;
    std::size_t fallbackCount() const;
};

} // namespace portolan::runtime
