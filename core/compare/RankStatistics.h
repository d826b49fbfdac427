// Order statistics of a comparison: the median and p99 of the errors, and how often the checked
// run's top-1 / top-5 classes hold the reference's argmax (logits). Used by compareTensors.
#pragma once

#include "compare/TensorMetrics.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace portolan::compare {

/// The median and p99 (nearest rank) of non-negative floats, NaN counted as the largest.
std::pair<double, double> medianAndP99(const std::vector<float> &values);
/// Sets m.top1 and m.top5 over `rows` rows of `width` scores each.
void topAgreement(const double *ref, const double *act, std::int64_t rows, std::int64_t width, TensorMetrics &m);

} // namespace portolan::compare
