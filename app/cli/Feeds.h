// Graph-input feeds from the command line, shared by `run` and `compare`: --inputs DIR (ONNX
// test-data layout), --input NAME=FILE.pb or NAME=random[:SEED] (repeatable, later ones win), and
// --shape NAME=D,… for the symbolic dims of random inputs.
#pragma once

#include <QStringList>

#include "ir/Model.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::cli {

struct FeedOptions {
    std::string inputsDir;                                   ///< --inputs, or empty
    QStringList inputSpecs;                                  ///< --input values
    std::map<std::string, std::vector<std::int64_t>> shapes; ///< --shape values
    std::optional<std::uint64_t> randomSeed;                 ///< set: inputs left unfed get random values from it
};

/// The feeds for `model`'s main-graph inputs; errors name the input or the spec that is wrong.
support::Expected<runtime::NamedValues> buildFeeds(const ir::Model &model, const FeedOptions &options);

} // namespace portolan::cli
