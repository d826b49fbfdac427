// Numbers for people: three significant digits, and nan/inf spelled out (as JSON and reports show them).
#pragma once

#include <string>

namespace portolan::support {

/// "0.000398", "1.5e+03", "nan", "inf", "-inf".
std::string shortNumber(double x);

} // namespace portolan::support
