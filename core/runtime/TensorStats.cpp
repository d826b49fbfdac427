// Two-pass statistics (mean first) so the standard deviation does not cancel catastrophically.
#include "runtime/TensorStats.h"

#include "runtime/Half.h"
#include "runtime/NarrowTypes.h"
#include "runtime/Dispatch.h"

#include <algorithm>

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

double elementAsDouble(const Tensor &tensor, std::int64_t index)
{
    const int type = tensor.dataType();
    if (index < 0 || index >= tensor.size())
        return std::numeric_limits<double>::quiet_NaN();
    switch (type) {
    case onnx::TensorProto::BOOL: return tensor.data<std::uint8_t>()[index] ? 1.0 : 0.0;
    case onnx::TensorProto::FLOAT16: return tensor.data<Float16>()[index].toFloat();
    case onnx::TensorProto::BFLOAT16: return tensor.data<BFloat16>()[index].toFloat();
    default:
        if (isNarrowType(type))
            return narrowToDouble(type, tensor.data<std::uint8_t>()[index]);
        break;
    }
    double value = std::numeric_limits<double>::quiet_NaN();
    kernels::visitNumeric(type, [&]<typename T>() { value = static_cast<double>(tensor.data<T>()[index]); });
    return value;
}

TensorHistogram tensorHistogram(const Tensor &tensor, const TensorStats &stats, int bins)
{
    TensorHistogram h;
    if (!stats.numeric || bins <= 0 || stats.count == stats.nans + stats.infs)
        return h;
    h.low = stats.min;
    h.high = stats.max;
    h.counts.assign(static_cast<std::size_t>(bins), 0);
    const double width = (h.high - h.low) / bins;
    for (std::int64_t i = 0; i < tensor.size(); ++i) {
        const double v = elementAsDouble(tensor, i);
        if (!std::isfinite(v))
            continue;
        const auto bin = width > 0 ? static_cast<std::int64_t>((v - h.low) / width) : 0;
        ++h.counts[static_cast<std::size_t>(std::clamp<std::int64_t>(bin, 0, bins - 1))];
    }
    return h;
}

} // namespace portolan::runtime
