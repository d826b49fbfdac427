// Runs test directories in ONNX's backend-test layout (model.onnx + test_data_set_N/{input,output}_K.pb)
// on the reference interpreter and compares with ONNX's own tolerances.
#pragma once

#include "support/Expected.h"

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace portolan::conform {

enum class Outcome { Pass, Fail, Error, Random, Skipped };
const char *outcomeName(Outcome outcome);

struct Tolerance {
    double rtol = 1e-3; ///< ONNX's backend runner: np.testing.assert_allclose(rtol=1e-3, atol=1e-7)
    double atol = 1e-7;
};

struct CaseResult {
    std::string name;   ///< the directory's name ("test_abs")
    std::string suite;  ///< its parent directory's name ("node")
    std::string path;
    Outcome outcome = Outcome::Error;
    std::string detail; ///< why it failed, errored or was set aside; the worst element on a numeric failure
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

/// Every test directory at or below `roots` (a directory holding model.onnx is one test), sorted.
std::vector<std::string> findCases(const std::vector<std::string> &roots);

/// Runs one test directory.
CaseResult runCase(const std::string &dir, const Tolerance &tolerance = {});

/// Runs every case whose name matches `filter` (all when empty).
Report runAll(const std::vector<std::string> &dirs, const std::string &filter, const Tolerance &tolerance = {});

} // namespace portolan::conform
