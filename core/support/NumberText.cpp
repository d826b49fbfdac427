// See NumberText.h.
#include "support/NumberText.h"

#include <cmath>
#include <cstdio>

namespace portolan::support {

std::string shortNumber(double x)
{
    if (std::isnan(x))
        return "nan";
    if (std::isinf(x))
        return x > 0 ? "inf" : "-inf";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", x);
    return buffer;
}

} // namespace portolan::support
