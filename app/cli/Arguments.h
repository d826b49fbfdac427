// Per-command argument parsing on QCommandLineParser, with Portolan's exit codes and help layout.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::cli {

/// Parses `arguments` for command `name`. Prints help (and returns kExitOk) for --help, prints the
/// error and the usage (and returns kExitUsage) on bad usage; returns nullopt when the command
/// should go on. Every command also takes --help, --verbose and --quiet. Between `minPositional`
/// and `maxPositional` positional arguments are accepted.
std::optional<int> parseArguments(QCommandLineParser &parser, const QString &name, const QString &summary,
                                  const QStringList &arguments, int minPositional, int maxPositional);

/// "--shape NAME=D0,D1,…" values (repeatable) → dims by input name; fails naming the bad one.
support::Expected<std::map<std::string, std::vector<std::int64_t>>> parseShapeSpecs(const QStringList &specs);

/// "4G", "512M", "1000000" → bytes; nullopt when malformed or not positive.
std::optional<std::size_t> parseSize(const QString &text);

} // namespace portolan::cli
