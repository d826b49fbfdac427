// A model's graph-input values from one description, for every command, the GUI, the numeric checks
// of the passes, int8 calibration and the GPU's peak measurement. One seed rule for random values:
//
//   the k-th graph input without an initializer (k = 0, 1, … in the main graph's input order) of
//   batch b gets randomInput(…, inputSeed(seed, k, b)) = seed + k + 1000003·b,
//
// so `portolan compare --seed S` and the compare dock with seed S feed the same tensors, and a
// calibration batch never repeats another's inputs (a model has fewer than a million inputs).
#pragma once

#include "ir/Model.h"
#include "runtime/Executor.h"
#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::runtime {

/// The default of `seed` wherever a user may give one (--seed, the compare dock's field).
constexpr std::uint64_t kDefaultSeed = 0;

/// The seed of the k-th graph input without an initializer, in calibration batch `batch`.
constexpr std::uint64_t inputSeed(std::uint64_t seed, std::size_t k, std::uint64_t batch = 0)
{
    return seed + static_cast<std::uint64_t>(k) + 1000003u * batch;
}

/// One input's value given by name: a file (.pb TensorProto/SequenceProto/OptionalProto, or .npy), or
/// random values (`file` empty) from `seed`, or from the rule's seed when `seed` is unset.
struct InputSource {
    std::string input;
    std::string file;
    std::optional<std::uint64_t> seed;
};

/// Where the values come from, in increasing precedence: `testDataDir`'s input_K.pb files (ONNX's
/// test-data layout), then `sources` (a later one for the same input wins), then — when `seed` is set
/// — random values for every input still unfed. With `seed` unset an unfed input is an error.
struct FeedSpec {
    std::string testDataDir;
    std::vector<InputSource> sources;
    std::optional<std::uint64_t> seed;
    std::uint64_t batch = 0;                ///< the calibration batch (inputSeed's b)
    std::map<std::string, Shape> shapes;    ///< dims of random inputs by name, for symbolic dims
    /// Set: a symbolic dim neither `shapes` nor the model fixes takes this extent (the passes' numeric
    /// checks); unset: it is an error naming the input and the dim.
    std::optional<std::int64_t> symbolicDimsAs;
};

/// The feeds for `model`'s main-graph inputs in input order; errors name the input, the file or the
/// source that is wrong. A source naming anything but a graph input is refused.
support::Expected<NamedValues> buildFeeds(const ir::Model &model, const FeedSpec &spec);

/// Random feeds by the seed rule for every input without an initializer: buildFeeds with only `seed`.
support::Expected<NamedValues> randomFeeds(const ir::Model &model, std::uint64_t seed, std::uint64_t batch = 0,
                                           const std::map<std::string, Shape> &shapes = {});

/// "NAME=FILE" or "NAME=random[:SEED]" (the CLI's --input, a session's input list) as a source; the
/// error quotes the spec.
support::Expected<InputSource> parseInputSource(const std::string &spec);

} // namespace portolan::runtime
