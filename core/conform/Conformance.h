// Runs test directories in ONNX's backend-test layout (model.onnx + test_data_set_N/{input,output}_K.pb)
// on the reference interpreter, the compiled CPU executor or a plugged one (the GPU), and compares
// with ONNX's own tolerances.
#pragma once

#include "ir/Model.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <functional>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace portolan::conform {

enum class Outcome { Pass, Fail, Error, Random, Skipped };
const char *outcomeName(Outcome outcome);

/// An element passes when |actual − expected| ≤ atol + rtol·|expected| (numpy's allclose, as ONNX's
/// backend runner checks); integers and booleans must be equal.
struct Tolerance {
    double rtol = 1e-3; ///< ONNX's backend runner: np.testing.assert_allclose(rtol=1e-3, atol=1e-7)
    double atol = 1e-7;
};

/// A tolerance for the cases whose directory name matches `pattern` (a regular expression, searched).
struct CaseTolerance {
    std::string pattern;
    Tolerance tolerance;
};

/// The tolerance each case is held to: `base`, or the last override whose pattern matches its name.
struct Tolerances {
    Tolerance base;
    std::vector<CaseTolerance> overrides;

    Tolerances() = default;
    Tolerances(Tolerance all) : base(all) {} // NOLINT(google-explicit-constructor): one tolerance for every case
    Tolerance forCase(const std::string &name) const;
};

struct CaseResult {
    std::string name;   ///< the directory's name ("test_abs")
    std::string suite;  ///< its parent directory's name ("node")
    std::string path;
    Outcome outcome = Outcome::Error;
    std::string detail; ///< why it failed, errored or was set aside; the largest error on a numeric failure
    Tolerance tolerance; ///< what its numbers were held to
    std::vector<std::string> ops; ///< op types the model uses (subgraphs included)
    int dataSets = 0;
    double seconds = 0;
};

struct OpTally {
    int pass = 0, fail = 0, error = 0, random = 0, skipped = 0;
};

struct Report {
    std::vector<CaseResult> cases;
    std::map<std::string, OpTally> byOp;
    std::map<Outcome, int> totals;
};

/// Runs one test model's data sets.
using Runner = std::function<support::Expected<runtime::NamedValues>(const runtime::NamedValues &, const runtime::RunOptions &)>;
/// Makes the runner of one test's model, or says why it cannot run it (the test is then an error).
/// The runner may hold on to the model until the test ends.
using RunnerFactory = std::function<support::Expected<Runner>(const ir::Model &)>;

/// The reference interpreter (the default); a model with an op it has no kernel for is refused.
RunnerFactory referenceRunner();
/// The compiled CPU executor on the model as given (nodes without a native kernel on their
/// reference kernel, as `run --executor cpu -O0` runs them).
RunnerFactory compiledCpuRunner();
/// An executor registered under `name` ("cuda"), at fp32; nullopt when this build has none.
std::optional<RunnerFactory> pluggedRunner(const std::string &name);

/// Every test directory at or below `roots` (a directory holding model.onnx is one test), sorted.
std::vector<std::string> findCases(const std::vector<std::string> &roots);

/// Runs one test directory.
CaseResult runCase(const std::string &dir, const Tolerance &tolerance = {}, const RunnerFactory &runner = referenceRunner());

/// Runs every case whose name matches `filter` (all when empty).
Report runAll(const std::vector<std::string> &dirs, const std::string &filter, const Tolerances &tolerances = {},
              const RunnerFactory &runner = referenceRunner());

} // namespace portolan::conform
