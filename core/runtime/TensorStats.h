// Summary statistics of a tensor (accumulated in double), for `portolan run`, the inspector and reports.
#pragma once

#include "runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace portolan::runtime {

struct TensorStats {
    std::int64_t count = 0;  ///< elements
    std::int64_t nans = 0;
    std::int64_t infs = 0;
    double min = 0, max = 0, mean = 0, stddev = 0; ///< over the finite elements
    bool numeric = false;    ///< false for strings
};

TensorStats tensorStats(const Tensor &tensor);

/// Element `index` (row-major) of a numeric, bool or 16-bit float tensor as a double; NaN for
/// strings. Reads in place, so a table over a large initializer converts only what it shows.
double elementAsDouble(const Tensor &tensor, std::int64_t index);

/// Counts of the finite elements in `bins` equal-width bins over [min, max] of `stats`.
struct TensorHistogram {
    double low = 0, high = 0;
    std::vector<std::int64_t> counts;
};
TensorHistogram tensorHistogram(const Tensor &tensor, const TensorStats &stats, int bins = 64);

} // namespace portolan::runtime
