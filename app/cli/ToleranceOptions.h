// --atol, --rtol, --error-quantile and --no-drift, shared by compare and bisect-precision.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "session/Comparison.h"
#include "support/Expected.h"

namespace portolan::cli {

struct ToleranceOptions {
    QCommandLineOption atol{"atol", "Absolute tolerance for every tensor (default, per tensor: 1e-5 times its scale and the "
                                    "square root of its depth).",
                            "A"};
    QCommandLineOption rtol{"rtol", "Relative tolerance for every tensor (default, per tensor: 1e-5 times the square root of "
                                    "its depth). An element fails only past both atol and rtol·|reference|.",
                            "R"};
    QCommandLineOption quantile{"error-quantile", "The fraction of each tensor's elements that must be within tolerance "
                                                  "(default 1: every one; 0.99 is Polygraphy's quantile check).",
                                "Q"};

    QCommandLineOption noDrift{"no-drift", "Judge every tensor out of tolerance a bug, however little past it (the "
                                           "tolerance alone decides, as in Polygraphy); by default, error up to what the "
                                           "precision's rounding explains is drift."};

    void addTo(QCommandLineParser &parser) const { parser.addOptions({atol, rtol, quantile, noDrift}); }

    /// Sets `request`'s tolerance (none unless --atol or --rtol is given: each tensor then gets its
    /// default, grown with its depth; 1e-5, Polygraphy's default, for the half not given), quantile
    /// and drift.
    support::Status applyTo(const QCommandLineParser &parser, session::ComparisonRequest &request) const
    {
        request.allowDrift = !parser.isSet(noDrift);
        if (parser.isSet(quantile)) {
            bool ok = false;
            request.errorQuantile = parser.value(quantile).toDouble(&ok);
            if (!ok || !(request.errorQuantile > 0 && request.errorQuantile <= 1))
                return support::makeError("bad-usage", "--error-quantile takes a fraction in (0, 1], such as 0.99");
        }
        if (!parser.isSet(atol) && !parser.isSet(rtol))
            return {};
        compare::Tolerance tolerance = compare::kEquivalentPerStep;
        tolerance.atolPerScale = false;
        bool ok = true;
        if (parser.isSet(atol))
            tolerance.atol = parser.value(atol).toDouble(&ok);
        if (ok && parser.isSet(rtol))
            tolerance.rtol = parser.value(rtol).toDouble(&ok);
        if (!ok || tolerance.atol < 0 || tolerance.rtol < 0)
            return support::makeError("bad-usage", "--atol and --rtol take non-negative numbers");
        request.tolerance = tolerance;
        return {};
    }
};

} // namespace portolan::cli
