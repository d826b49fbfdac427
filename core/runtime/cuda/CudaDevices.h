// The GPUs the CUDA runtime sees, for `portolan --version`, reports and the CUDA executor's checks.
// Plain C++: callers need no CUDA headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace portolan::runtime::cuda {

struct CudaDevice {
    int index = 0;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    std::uint64_t memoryBytes = 0;
    int multiprocessors = 0;
};

struct CudaDeviceQuery {
    int runtimeVersion = 0;   ///< e.g. 13000 for CUDA 13.0
    int driverVersion = 0;    ///< 0 when no driver is installed
    std::vector<CudaDevice> devices;
    std::string problem;      ///< why no device is usable ("no CUDA driver", …); empty when fine
};

/// Asks the CUDA runtime; never throws, never aborts when there is no GPU or driver.
CudaDeviceQuery queryCudaDevices();

} // namespace portolan::runtime::cuda
