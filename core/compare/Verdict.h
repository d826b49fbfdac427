// What a tensor's difference means to a port engineer: numerically equivalent (within tolerance),
// drift (out of tolerance, yet no more than rounding at the run's precision explains, and close by
// Polygraphy's cosine, PSNR and SNR criteria) or a bug.
#pragma once

#include "compare/TensorMetrics.h"

#include <string>

namespace portolan::compare {

enum class Verdict { Equivalent, Drift, Bug };

/// "equivalent", "drift", "bug".
const char *verdictName(Verdict verdict);

/// The tensor-level criteria drift must also meet: Polygraphy's defaults.
struct DriftCriteria {
    double minCosine = 0.997;
    double minPsnrDb = 30;
    double minSnrDb = 20;
};

struct Judgement {
    Verdict verdict = Verdict::Bug;
    std::string why; ///< "12 of 4096 elements out of tolerance; error 3.1e-4 of the scale, within the 9.8e-4 …"
};

/// Judges `metrics` (taken at some tolerance): equivalent when it passed; drift when its error over
/// the reference's scale is at most `explainedError` and the criteria hold; a bug otherwise,
/// always for a shape or type mismatch and for a NaN or infinity the other side lacks.
Judgement judge(const TensorMetrics &metrics, double explainedError, const DriftCriteria &criteria = {});

} // namespace portolan::compare
