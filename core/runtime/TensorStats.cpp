// Two-pass statistics (mean first) so the standard deviation does not cancel catastrophically.
#include "runtime/TensorStats.h"

#include "runtime/reference/kernels/Dispatch.h"

#include <cmath>
#include <limits>

namespace portolan::runtime {

TensorStats tensorStats(const Tensor &tensor)
{
    TensorStats s;
    s.count = tensor.size();
    if (!tensor.defined() || tensor.dataType() == onnx::TensorProto::STRING)
        return s;
    s.numeric = true;
    const Tensor values = kernels::convertTensor(tensor, onnx::TensorProto::DOUBLE);
    const double *v = values.data<double>();
    double sum = 0;
    std::int64_t finite = 0;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -std::numeric_limits<double>::infinity();
    for (std::int64_t i = 0; i < values.size(); ++i) {
        if (std::isnan(v[i])) {
            ++s.nans;
        } else if (std::isinf(v[i])) {
            ++s.infs;
        } else {
            ++finite;
            sum += v[i];
            s.min = std::min(s.min, v[i]);
            s.max = std::max(s.max, v[i]);
        }
    }
    if (finite == 0) {
        s.min = s.max = 0;
        return s;
    }
    s.mean = sum / static_cast<double>(finite);
    double squares = 0;
    for (std::int64_t i = 0; i < values.size(); ++i)
        if (std::isfinite(v[i]))
            squares += (v[i] - s.mean) * (v[i] - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(finite));
    return s;
}

} // namespace portolan::runtime
