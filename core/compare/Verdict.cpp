// Judging a compared tensor (Verdict.h).
#include "compare/Verdict.h"

#include "support/NumberText.h"

#include <cmath>

namespace portolan::compare {

const char *verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Equivalent: return "equivalent";
    case Verdict::Drift: return "drift";
    case Verdict::Bug: break;
    }
    return "bug";
}

Judgement judge(const TensorMetrics &m, double explainedError, const DriftCriteria &criteria)
{
    using support::shortNumber;
    if (!m.mismatch.empty())
        return {Verdict::Bug, m.mismatch};
    if (m.passed)
        return {Verdict::Equivalent, m.outOfTolerance == 0 ? "within tolerance"
                                                            : std::to_string(m.outOfTolerance) + " of " + std::to_string(m.elements) +
                                                                  " elements out of tolerance, within its quantile"};
    const double error = normalizedError(m);
    const std::string out = std::to_string(m.outOfTolerance) + " of " + std::to_string(m.elements) + " elements out of tolerance";
    if (!std::isfinite(error) || m.referenceNans != m.actualNans || m.referenceInfs != m.actualInfs)
        return {Verdict::Bug, out + ", with a NaN or an infinity where the reference has a number"};
    if (error > explainedError)
        return {Verdict::Bug, out + "; its error, " + shortNumber(error) + " of the scale, is past the " + shortNumber(explainedError) +
                                  " rounding explains"};
    if (m.cosine < criteria.minCosine)
        return {Verdict::Bug, out + "; cosine " + shortNumber(m.cosine) + " < " + shortNumber(criteria.minCosine)};
    if (m.psnrDb < criteria.minPsnrDb)
        return {Verdict::Bug, out + "; PSNR " + shortNumber(m.psnrDb) + " dB < " + shortNumber(criteria.minPsnrDb) + " dB"};
    if (m.snrDb < criteria.minSnrDb)
        return {Verdict::Bug, out + "; SNR " + shortNumber(m.snrDb) + " dB < " + shortNumber(criteria.minSnrDb) + " dB"};
    return {Verdict::Drift, out + "; its error, " + shortNumber(error) + " of the scale, is within the " + shortNumber(explainedError) +
                                " rounding explains"};
}

} // namespace portolan::compare
