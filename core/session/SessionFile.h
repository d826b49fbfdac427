// A `.portolan` session: the model and how the workbench was set to look at it — the pipeline
// dock's passes, the compare dock's form, the findings dock's target — as versioned JSON that
// reopens where it was left. Paths are stored relative to the session's folder when they lie
// below it, so a session travels with its model.
#pragma once

#include "runtime/Feeds.h"
#include "support/Expected.h"

#include <cstdint>
#include <string>

namespace portolan::session {

/// The compare dock's form as the user typed it ("" for a field left to its default).
struct CompareForm {
    std::string sideA = "reference";  ///< or cpu:fp32|fp16|bf16
    std::string pipeline = "-O2", precision = "fp32";
    std::string calibration = "random:8"; ///< int8's calibration batches
    std::string importFrom;           ///< "": B is not an imported run; else its path
    std::string externalCommand;      ///< "": B is not an external command; else "CMD {model} {inputs} {outputs}"
    std::string executorB = "cpu";    ///< B compiled on "cpu" or "cuda", or "ort:LEVEL" (ONNX Runtime)
    std::string inputsDir;            ///< "": seeded random inputs
    std::string inputFiles;           ///< "name=FILE.npy; other=FILE.pb" as typed
    std::uint64_t seed = runtime::kDefaultSeed;
    std::string shapes;               ///< "name=1,3,224,224; other=1,128"
    std::string atol, rtol;           ///< "": the defaults, by each tensor's depth
    bool noDrift = false;             ///< every tensor out of tolerance is a bug (ComparisonRequest::allowDrift off)
    std::string heatMetric = "normalized-error"; ///< normalized-error, max-abs or cosine-distance
};

struct SessionFile {
    static constexpr int kFormatVersion = 1;
    std::string model;    ///< absolute once read
    std::string pipeline; ///< the pipeline dock's text
    CompareForm compare;
    std::string target;   ///< target profile id; "" for none
};

/// The session as JSON, its paths relative to `sessionPath`'s folder where they lie below it.
std::string sessionJson(const SessionFile &session, const std::string &sessionPath);
/// Writes `session` to `path`; an existing file needs `force`.
support::Status writeSession(const SessionFile &session, const std::string &path, bool force);
/// Reads a session, resolving its paths against its folder. Errors name the file and the field.
support::Expected<SessionFile> readSession(const std::string &path);

} // namespace portolan::session
