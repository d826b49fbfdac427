// The pass options run, compare and bisect-precision share: --pipeline P, -O0, -O1, -O2, as the
// request's pipeline text.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "support/Expected.h"

#include <string>

namespace portolan::cli {

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
};

} // namespace portolan::cli
