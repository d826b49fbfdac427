// The kernel cases both compiled executors are checked on against the reference interpreter: each
// a small model text (a signature, weights and a body) that exercises one kernel on odd shapes,
// strides, groups, broadcasting and each fused activation. Shared so that the CPU and CUDA executors
// answer the same questions.
#pragma once

#include "ir/Model.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace portolan::test {

struct KernelCaseRow {
    const char *name;
    const char *signature;
    /// Space-separated: name:d0xd1… (seeded values in [-1, 1)), name=value (a float scalar),
    /// name=int64:v0,v1… (an int64 vector), name=int64[]:v (an int64 scalar).
    const char *weights;
    const char *body;
};

const std::vector<KernelCaseRow> &kernelCases();

/// A model for a signature, weights with seeded values, and a body.
struct KernelCase {
    std::string signature;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> weights; ///< seeded values
    std::string scalars; ///< ", float lo = {-0.5}…": weights with given values
    std::string body;
};
std::unique_ptr<ir::Model> caseModel(const KernelCase &c);
std::unique_ptr<ir::Model> kernelCaseModel(const KernelCaseRow &row);

/// Runs the reference interpreter and `run` on seeded feeds; true when `run`'s outputs match the
/// reference's within `rtol` (and 1e-5 absolute) on at least one element (a warning says where not).
bool outputsMatchReference(const ir::Model &model,
                           const std::function<support::Expected<runtime::NamedValues>(const runtime::NamedValues &)> &run,
                           double rtol = 1e-4, std::uint64_t seed = 7,
                           const std::map<std::string, std::vector<std::int64_t>> &shapes = {});

} // namespace portolan::test
