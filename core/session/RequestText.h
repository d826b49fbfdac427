// Request parts as users type them — an input's source, the dims of symbolic inputs — parsed once
// for every client (the CLI's options, the compare dock's fields).
#pragma once

#include "runtime/Feeds.h"
#include "support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::session {

/// "NAME=FILE.pb", "NAME=FILE.npy", "NAME=random" or "NAME=random:SEED".
support::Expected<runtime::InputSource> parseFeedSource(const std::string &text);
/// "NAME=D0,D1,…" each: the dims of inputs with symbolic dims, by input name.
support::Expected<std::map<std::string, runtime::Shape>> parseShapes(const std::vector<std::string> &texts);

} // namespace portolan::session
