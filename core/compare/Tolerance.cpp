// The tolerance a precision is held to by default, and an error in units of the reference's scale
// (declared in TensorMetrics.h).
#include "compare/TensorMetrics.h"

#include <limits>

namespace portolan::compare {

double normalizedError(const TensorMetrics &m)
{
    if (!m.mismatch.empty())
        return std::numeric_limits<double>::infinity();
    return m.referenceScale > 0 ? m.maxAbs / m.referenceScale : m.maxAbs;
}

Tolerance defaultTolerance(const std::string &precision)
{
    if (precision == "fp16")
        return {1e-2, 1e-2};
    if (precision == "bf16")
        return {5e-2, 5e-2};
    if (precision == "int8")
        return {1e-1, 1e-1};
    return {1e-5, 1e-5};
}

} // namespace portolan::compare
