// A precision's default tolerances and the error it explains (Tolerance.h), and an error in units
// of the reference's scale (TensorMetrics.h).
#include "compare/Tolerance.h"
#include "compare/TensorMetrics.h"
#include "support/NumberText.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace portolan::compare {

namespace {

/// How many unit roundoffs of the scale, times √depth, rounding explains. Measured on decoder_deep
/// (24 layers, depth up to 800), the transformers and the CNN: the largest error was 0.9 of u·√depth
/// at fp16, 0.65 at bf16 and 2.8 at fp32 (where the default tolerance is wider anyway; docs/compare.md).
constexpr double kExplainedRoundings = 4;

double growth(int depth)
{
    return std::sqrt(static_cast<double>(std::max(depth, 1)));
}

} // namespace

double normalizedError(const TensorMetrics &m)
{
    if (!m.mismatch.empty())
        return std::numeric_limits<double>::infinity();
    return m.referenceScale > 0 ? m.maxAbs / m.referenceScale : m.maxAbs;
}

PrecisionModel PrecisionModel::of(const std::string &precision)
{
    if (precision == "fp16")
        return {"fp16", 0x1p-11};
    if (precision == "bf16")
        return {"bf16", 0x1p-8};
    if (precision == "int8")
        return {"int8", 0x1p-8};
    return {"fp32", 0x1p-24};
}

PrecisionModel PrecisionModel::coarser(const PrecisionModel &a, const PrecisionModel &b)
{
    return a.unitRoundoff >= b.unitRoundoff ? a : b;
}

Tolerance PrecisionModel::defaultTolerance(int depth) const
{
    Tolerance t = kEquivalentPerStep;
    t.atol *= growth(depth);
    t.rtol *= growth(depth);
    return t;
}

double PrecisionModel::explainedError(int depth) const
{
    return std::max(kExplainedRoundings * unitRoundoff, kEquivalentPerStep.atol) * growth(depth);
}

Tolerance PrecisionModel::explainedTolerance(int depth) const
{
    const double edge = explainedError(depth);
    return {edge, edge, 1, true};
}

std::string describeTolerances(const std::optional<Tolerance> &set, const PrecisionModel &precision, double quantile,
                               bool allowDrift)
{
    using support::shortNumber;
    std::string text = set ? "atol " + shortNumber(set->atol) + ", rtol " + shortNumber(set->rtol)
                           : "defaults: atol " + shortNumber(kEquivalentPerStep.atol) + " × scale, rtol " +
                                 shortNumber(kEquivalentPerStep.rtol) + ", each × √depth";
    text += allowDrift ? "; " + precision.precision + " explains " + shortNumber(precision.explainedError(1)) + " of the scale × √depth"
                       : "; no drift: every failure is a bug";
    if (quantile < 1)
        text += ", " + shortNumber(quantile) + " of the elements";
    return text;
}

} // namespace portolan::compare
