// Summary statistics of a tensor (accumulated in double), for `portolan run`, the inspector and reports.
#pragma once

#include "runtime/Tensor.h"

#include <cstdint>

namespace portolan::runtime {

struct TensorStats {
    std::int64_t count = 0;  ///< elements
    std::int64_t nans = 0;
    std::int64_t infs = 0;
    double min = 0, max = 0, mean = 0, stddev = 0; ///< over the finite elements
    bool numeric = false;    ///< false for strings
};

TensorStats tensorStats(const Tensor &tensor);

} // namespace portolan::runtime
