// How far one tensor is from its reference: the error statistics a port engineer reads (max, mean,
// median, p99 of absolute and relative error, RMSE, cosine, SNR), the worst element, NaN/Inf
// counts, the element check at a tolerance (compare/Tolerance.h) and the smallest tolerance that would have passed,
// and for logits the top-1/top-5 agreement along the last axis.
#pragma once

#include "compare/Tolerance.h"
#include "runtime/PhysicalLayout.h"
#include "runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::compare {

struct TensorMetrics {
    std::string mismatch; ///< non-empty when the tensors cannot be compared (shape or type), and why
    std::int64_t elements = 0;
    /// Maxima and means over every element. Medians and p99s are exact up to 4096 elements; past
    /// that they are the middles of 1/16-octave bins (within 6.25%), and from 16384 elements on,
    /// of a sample of at least 8192 elements (one group of eight in 2, 4, … 128, at varying offsets).
    double maxAbs = 0, meanAbs = 0, medianAbs = 0, p99Abs = 0;
    double maxRel = 0, meanRel = 0, medianRel = 0, p99Rel = 0; ///< |error| / max(|reference|, epsilon)
    double rmse = 0;
    double referenceScale = 0; ///< max |reference| over its finite elements, masks (≥ half the type's largest) left out
    double cosine = 1;   ///< 1 when both are all zeros
    double snrDb = 0;    ///< 10·log10(Σ ref² / Σ error²); +inf when there is no error
    double psnrDb = 0;   ///< 20·log10(referenceScale / rmse); +inf when there is no error
    std::int64_t referenceNans = 0, referenceInfs = 0, actualNans = 0, actualInfs = 0;
    std::int64_t worstIndex = -1;        ///< flat index of the largest |error| (a NaN on one side only is infinite)
    std::vector<std::int64_t> worstAt;   ///< the same as a multi-index
    double worstReference = 0, worstActual = 0;
    std::int64_t outOfTolerance = 0;     ///< elements out of the tolerance (a NaN against a number is)
    bool passed = false;                 ///< the element check at the tolerance (NaN matches only NaN)
    double appliedAtol = 0;              ///< the tolerance's atol in the tensor's units (times the scale when per scale)
    double neededAtol = 0;               ///< the smallest atol that passes every element at the given rtol
    double neededRtol = 0;               ///< the smallest rtol that passes every element at the given atol (inf when no rtol can)
    std::optional<double> top1, top5;    ///< rows along the last axis whose reference argmax is b's top-1 / in its top-5
};

/// max |error| over the reference's scale (max |error| when the reference is all zeros); infinite
/// when the tensors could not be compared.
double normalizedError(const TensorMetrics &metrics);

/// Compares `actual` with `reference`. `epsilon` keeps relative errors finite where the reference
/// is zero; `logits` asks for the top-k agreement (rows along the last axis, at least 2 wide).
/// `actualLayout`, when given, is the order of actual's elements (an executor's blocked layout): the
/// metrics are the same as for its row-major copy, without making one.
TensorMetrics compareTensors(const runtime::Tensor &reference, const runtime::Tensor &actual, const Tolerance &tolerance,
                             bool logits = false, double epsilon = 1e-8, const runtime::PhysicalLayout *actualLayout = nullptr);

} // namespace portolan::compare
