// --inputs, --input, --shape and --seed as a runtime::FeedSpec (see Feeds.h).
#include "cli/Feeds.h"

#include "cli/Arguments.h"

namespace portolan::cli {

void FeedCommandOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions({inputs, input, shape});
    if (withSeed)
        parser.addOption(seed);
}

support::Expected<std::map<std::string, std::vector<std::int64_t>>> FeedCommandOptions::shapes(const QCommandLineParser &parser) const
{
    return parseShapeSpecs(parser.values(shape));
}

support::Expected<runtime::FeedSpec> FeedCommandOptions::spec(const QCommandLineParser &parser) const
{
    runtime::FeedSpec spec;
    auto dims = shapes(parser);
    if (!dims)
        return dims.takeError();
    spec.shapes = std::move(*dims);
    spec.testDataDir = parser.value(inputs).toStdString();
    for (const QString &value : parser.values(input)) {
        auto source = session::parseFeedSource(value.toStdString());
        if (!source) {
            support::Error e = source.takeError();
            e.primary.message = "--" + e.primary.message;
            return e;
        }
        spec.sources.push_back(std::move(*source));
    }
    if (withSeed) {
        bool ok = false;
        spec.seed = parser.value(seed).toULongLong(&ok);
        if (!ok)
            return support::makeError("bad-usage", "--seed takes a non-negative number");
    }
    return spec;
}

support::Error withFeedHint(support::Error error)
{
    if (error.primary.code == "missing-feed")
        error.primary.message += ": feed them with --inputs DIR (input_K.pb files), --input NAME=FILE.pb or NAME=FILE.npy, "
                                 "or --input NAME=random[:SEED]";
    return error;
}

} // namespace portolan::cli
