// Pass options → the pipeline text (see PassOptions.h).
#include "cli/PassOptions.h"

namespace portolan::cli {

void PassOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions({pipeline, o0, o1, o2});
}

support::Status PassOptions::check(const QCommandLineParser &parser) const
{
    if (int(parser.isSet(o0)) + int(parser.isSet(o1)) + int(parser.isSet(o2)) + int(parser.isSet(pipeline)) > 1)
        return support::makeError("bad-usage", "give one of --pipeline, -O0, -O1, -O2");
    return support::Status::ok();
}

std::string PassOptions::text(const QCommandLineParser &parser, int defaultLevel) const
{
    if (parser.isSet(pipeline))
        return parser.value(pipeline).toStdString();
    const int level = parser.isSet(o0) ? 0 : parser.isSet(o1) ? 1 : parser.isSet(o2) ? 2 : defaultLevel;
    return "-O" + std::to_string(level);
}

} // namespace portolan::cli
