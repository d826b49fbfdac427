// What a comparison accepts: the element check (Polygraphy's rule), the default tolerances, which
// grow with a tensor's depth and are stated for its magnitude, and the error a precision explains,
// past which a tensor's error is a bug rather than drift.
#pragma once

#include <optional>
#include <string>

namespace portolan::compare {

/// The element check, as Polygraphy makes it: an element is out of tolerance only where its error
/// exceeds both atol and rtol·|reference|. A tensor passes when at most (1 − quantile) of its
/// elements are out (1: every element; 0.99 is Polygraphy's quantile check); a NaN where the other
/// side has a number fails it whatever the quantile.
struct Tolerance {
    double atol = 1e-5;
    double rtol = 1e-5;
    double quantile = 1;
    /// atol is in units of the reference's scale (its largest finite |element|, masks left out):
    /// how the default tolerances follow a tensor's magnitude.
    bool atolPerScale = false;
};

/// The default tolerance of one rounding step, for every precision: "numerically equivalent" means
/// as close as fp32 arithmetic in another order gets (1e-5 is some 170 of its unit roundoffs). A
/// lowered run's own rounding is meant to show as drift, which its verdict then tells from a bug.
inline constexpr Tolerance kEquivalentPerStep{1e-5, 1e-5, 1, true};

/// What a run at a precision explains. Every op that computes new numbers rounds them once more,
/// and independent roundings add in quadrature: the default tolerances and the explained error
/// grow with the square root of a tensor's rounding depth (compare/RoundingDepth.h).
struct PrecisionModel {
    std::string precision = "fp32";
    double unitRoundoff = 0x1p-24; ///< half an ulp of 1: 2^-24 fp32, 2^-11 fp16, 2^-8 bf16 and int8 (a step of 1/127, halved)

    /// fp32 (also the model for another runtime), fp16, bf16 or int8; fp32's for anything else.
    static PrecisionModel of(const std::string &precision);
    /// The coarser of two sides' precisions: what a comparison of them can expect.
    static PrecisionModel coarser(const PrecisionModel &a, const PrecisionModel &b);

    /// The default tolerance of a tensor `depth` rounding steps from the inputs (kEquivalentPerStep, grown).
    Tolerance defaultTolerance(int depth) const;
    /// The largest error over the reference's scale that rounding at this precision explains at
    /// `depth` (never less than the default tolerance): beyond it, a tensor's error is a bug, not drift.
    double explainedError(int depth) const;
    /// The tolerance at that edge (atol per scale and rtol both explainedError): what a check of a
    /// cut-out part or of the outputs alone holds a lowered run to when none is set.
    Tolerance explainedTolerance(int depth) const;
};

/// How a comparison's tolerances read in a header: "atol 1e-05, rtol 1e-05" when set, else
/// "defaults: atol 1e-05 × scale, rtol 1e-05, each × √depth; fp16 explains 0.0039 × √depth";
/// the quantile when below 1; "no drift" when every failure is a bug.
std::string describeTolerances(const std::optional<Tolerance> &set, const PrecisionModel &precision, double quantile,
                               bool allowDrift);

} // namespace portolan::compare
