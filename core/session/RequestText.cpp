// Request parts from text (see RequestText.h).
#include "session/RequestText.h"

#include "runtime/InputGeneration.h"

namespace portolan::session {

support::Expected<runtime::InputSource> parseFeedSource(const std::string &text)
{
    return runtime::parseInputSource(text);
}

support::Expected<std::map<std::string, runtime::Shape>> parseShapes(const std::vector<std::string> &texts)
{
    return runtime::parseShapeSpecs(texts);
}

} // namespace portolan::session
