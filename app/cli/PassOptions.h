// The pass options `run` and `compare` share: --pipeline P, -O0, -O1, -O2, and the passes they ask
// for, run on a copy of the model.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "passes/PassManager.h"

#include <optional>
#include <string>

namespace portolan::cli {

struct RequestedPasses {
    std::optional<passes::CompileResult> result; ///< nullopt: no passes
    std::string text;                            ///< the pipeline as parsed, or empty
    std::string label;                           ///< "-O1", "-O2" or the pipeline text
};

struct PassOptions {
    QCommandLineOption pipeline{"pipeline", "Passes to run first (see `portolan passes`).", "P"};
    QCommandLineOption o0{"O0", "Run the model as it is (the default for the reference interpreter)."};
    QCommandLineOption o1{"O1", "Run after the cleanup passes."};
    QCommandLineOption o2{"O2", "Run after cleanup and fusions (the default for the compiled executor)."};

    void addTo(QCommandLineParser &parser) const;
    /// At most one of the options may be given.
    support::Status check(const QCommandLineParser &parser) const;
    /// The pipeline asked for as a request carries it: "-O0", "-O1", "-O2" (`defaultLevel`'s when no
    /// option is given) or the --pipeline text.
    std::string text(const QCommandLineParser &parser, int defaultLevel) const;
    /// The passes asked for, or with none of the options `defaultLevel`'s preset (0: none).
    support::Expected<RequestedPasses> run(const QCommandLineParser &parser, const ir::Model &model, int defaultLevel) const;
};

} // namespace portolan::cli
