// Graph-input feeds from the command line, shared by `run`, `compare` and `bisect-precision`:
// --inputs DIR (ONNX test-data layout), --input NAME=FILE.pb, NAME=FILE.npy or NAME=random[:SEED]
// (repeatable, later ones win), --shape NAME=D,… for the symbolic dims of random inputs, and --seed.
// They become one runtime::FeedSpec; runtime::buildFeeds (core/runtime/Feeds.h) holds the seed rule.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "session/RequestText.h"
#include "support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::cli {

/// The options themselves: --inputs, --input, --shape, and with `withSeed` --seed (inputs left
/// unfed get random values by the seed rule: compare, bisect-precision).
struct FeedCommandOptions {
    bool withSeed = false;
    QCommandLineOption inputs{"inputs", "Feed inputs from DIR's input_K.pb files (ONNX test-data layout).", "DIR"};
    QCommandLineOption input{"input", "Feed input NAME from a TensorProto .pb or NumPy .npy file, or seeded random values "
                                      "(NAME=random: the --seed rule's values; NAME=random:SEED: that seed). Repeatable.",
                             "NAME=FILE.pb|NAME=FILE.npy|NAME=random[:SEED]"};
    QCommandLineOption shape{"shape", "Dims for an input with symbolic dims (random inputs, calibration). Repeatable.", "NAME=D0,D1,…"};
    QCommandLineOption seed{"seed",
                            "Seed of the random values of inputs not fed otherwise: the K-th graph input gets seed N+K.",
                            "N", QString::number(runtime::kDefaultSeed)};

    void addTo(QCommandLineParser &parser) const;
    /// --shape's dims by input name.
    support::Expected<std::map<std::string, std::vector<std::int64_t>>> shapes(const QCommandLineParser &parser) const;
    /// What the options ask for, as the request's FeedSpec.
    support::Expected<runtime::FeedSpec> spec(const QCommandLineParser &parser) const;
};

/// An unfed input's error ("missing-feed") with the options that feed it; other errors as they are.
support::Error withFeedHint(support::Error error);

} // namespace portolan::cli
