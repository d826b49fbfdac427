// Graph-input feeds from the command line, shared by `run` and `compare`: --inputs DIR (ONNX
// test-data layout), --input NAME=FILE.pb, NAME=FILE.npy or NAME=random[:SEED] (repeatable, later ones win), and
// --shape NAME=D,… for the symbolic dims of random inputs.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
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

/// The options themselves: --inputs, --input, --shape, and with `withSeed` --seed (inputs left
/// unfed get random values from it: compare, bisect-precision).
struct FeedCommandOptions {
    bool withSeed = false;
    QCommandLineOption inputs{"inputs", "Feed inputs from DIR's input_K.pb files (ONNX test-data layout).", "DIR"};
    QCommandLineOption input{"input", "Feed input NAME from a TensorProto .pb or NumPy .npy file, or seeded random values "
                                      "(NAME=random or NAME=random:SEED). Repeatable.",
                             "NAME=FILE.pb|NAME=FILE.npy|NAME=random[:SEED]"};
    QCommandLineOption shape{"shape", "Dims for an input with symbolic dims (random inputs, calibration). Repeatable.", "NAME=D0,D1,…"};
    QCommandLineOption seed{"seed", "Seed of the random values of inputs not fed otherwise.", "N", "0"};

    void addTo(QCommandLineParser &parser) const;
    /// --shape's dims by input name.
    support::Expected<std::map<std::string, std::vector<std::int64_t>>> shapes(const QCommandLineParser &parser) const;
    support::Expected<runtime::NamedValues> feeds(const QCommandLineParser &parser, const ir::Model &model) const;
};

} // namespace portolan::cli
