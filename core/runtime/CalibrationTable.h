// An int8 calibration table: the range of every activation an int8 node quantizes (the largest |x|
// seen and the clipping threshold the method chose), kept as text that can be saved, reviewed and
// loaded again. Measuring it runs a model: runtime/cpu/Calibration.h.
#pragma once

#include "support/Expected.h"

#include <map>
#include <optional>
#include <string>

namespace portolan::runtime {

enum class CalibrationMethod { MinMax, Percentile };

struct CalibrationSettings {
    CalibrationMethod method = CalibrationMethod::Percentile;
    double percentile = 99.99;

    /// "minmax", "percentile" or "percentile:P" (0 < P ≤ 100).
    static support::Expected<CalibrationSettings> parse(const std::string &text);
    std::string describe() const;
};

struct TensorRange {
    double absMax = 0;    ///< the largest |x| seen
    double threshold = 0; ///< where int8 clips: scale = threshold / 127
};

class CalibrationTable {
public:
    CalibrationSettings settings;
    int batches = 0;
    std::map<std::string, TensorRange> ranges; ///< by tensor (value) name

    /// The per-tensor scale for `tensor`, or nullopt when it was not calibrated.
    std::optional<float> scaleOf(const std::string &tensor) const;

    std::string toText() const;
    /// Parses toText()'s format; `source` names the file in errors.
    static support::Expected<CalibrationTable> fromText(const std::string &text, const std::string &source);
    static support::Expected<CalibrationTable> load(const std::string &path);
    /// Writes the table to `path` (the caller decides whether an existing file may be replaced).
    support::Status save(const std::string &path) const;
};

} // namespace portolan::runtime
