// Pass options → a pipeline run (see PassOptions.h).
#include "cli/PassOptions.h"

#include "passes/Pipeline.h"

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

support::Expected<RequestedPasses> PassOptions::run(const QCommandLineParser &parser, const ir::Model &model, int defaultLevel) const
{
    RequestedPasses requested;
    const int level = parser.isSet(o0) ? 0 : parser.isSet(o1) ? 1 : parser.isSet(o2) ? 2 : defaultLevel;
    if (!parser.isSet(pipeline) && level == 0)
        return requested;
    auto parsed = parser.isSet(pipeline) ? passes::parsePipeline(parser.value(pipeline).toStdString()) : passes::presetPipeline(level);
    if (!parsed)
        return parsed.takeError();
    auto result = passes::runPipeline(model, *parsed, {});
    if (!result)
        return result.takeError();
    requested.result = std::move(*result);
    requested.text = parsed->str();
    requested.label = parser.isSet(pipeline) ? requested.text : "-O" + std::to_string(level);
    return requested;
}

} // namespace portolan::cli
