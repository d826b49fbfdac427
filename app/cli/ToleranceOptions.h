// --atol and --rtol, shared by compare and bisect-precision, defaulting by the checked run's precision.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "session/Comparison.h"
#include "support/Expected.h"

namespace portolan::cli {

struct ToleranceOptions {
    QCommandLineOption atol{"atol", "Absolute tolerance (default by precision: fp32 1e-5, fp16 1e-2, bf16 5e-2, int8 0.1).", "A"};
    QCommandLineOption rtol{"rtol", "Relative tolerance (default by precision, as atol).", "R"};

    void addTo(QCommandLineParser &parser) const { parser.addOptions({atol, rtol}); }

    /// The tolerance asked for, or `precision`'s default for what is not given.
    support::Expected<compare::Tolerance> resolve(const QCommandLineParser &parser, const std::string &precision) const
    {
        compare::Tolerance tolerance = compare::defaultTolerance(precision);
        bool ok = true;
        if (parser.isSet(atol))
            tolerance.atol = parser.value(atol).toDouble(&ok);
        if (ok && parser.isSet(rtol))
            tolerance.rtol = parser.value(rtol).toDouble(&ok);
        if (!ok || tolerance.atol < 0 || tolerance.rtol < 0)
            return support::makeError("bad-usage", "--atol and --rtol take non-negative numbers");
        return tolerance;
    }
};

} // namespace portolan::cli
