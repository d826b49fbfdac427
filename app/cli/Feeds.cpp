// Feeds from --inputs, --input and --shape (see Feeds.h).
#include "cli/Feeds.h"

#include "compare/NumpyFiles.h"

#include "cli/Arguments.h"

#include "runtime/InputGeneration.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TestDataSet.h"

#include <algorithm>

namespace portolan::cli {

using runtime::NamedValues;
using runtime::RuntimeValue;
using support::makeError;

support::Expected<NamedValues> buildFeeds(const ir::Model &model, const FeedOptions &options)
{
    NamedValues feeds;
    if (!options.inputsDir.empty()) {
        auto read = runtime::readTestDataInputs(model, options.inputsDir);
        if (!read)
            return read.takeError();
        feeds = std::move(*read);
    }
    for (const QString &spec : options.inputSpecs) {
        const auto eq = spec.indexOf('=');
        if (eq <= 0)
            return makeError("bad-input", "--input '" + spec.toStdString() + "' is not NAME=FILE.pb, NAME=FILE.npy or NAME=random[:SEED]");
        const std::string name = spec.left(eq).toStdString();
        const QString source = spec.mid(eq + 1);
        const auto id = model.lookup(model.mainGraph(), name);
        if (!id)
            return makeError("bad-input", "the model has no input named '" + name + "'", model.sourcePath);
        std::erase_if(feeds, [&](const auto &f) { return f.first == name; });
        if (source == "random" || source.startsWith("random:")) {
            bool ok = true;
            const std::uint64_t seed = source == "random" ? 0 : source.mid(7).toULongLong(&ok);
            if (!ok)
                return makeError("bad-input", "--input '" + spec.toStdString() + "': the seed is not a number");
            auto t = runtime::randomInput(model.value(*id), seed, options.shapes);
            if (!t)
                return t.takeError();
            feeds.emplace_back(name, RuntimeValue::ofTensor(std::move(*t)));
        } else {
            auto v = compare::readFeedFile(source.toStdString(), model.value(*id));
            if (!v)
                return v.takeError();
            feeds.emplace_back(name, std::move(*v));
        }
    }
    std::string unfed;
    for (const ir::ValueId in : model.graph(model.mainGraph()).inputs) {
        const ir::Value &value = model.value(in);
        const bool fed = std::any_of(feeds.begin(), feeds.end(), [&](const auto &f) { return f.first == value.name; });
        if (fed || value.isInitializer())
            continue;
        if (!options.randomSeed) {
            unfed += (unfed.empty() ? "'" : ", '") + value.name + "'";
            continue;
        }
        auto t = runtime::randomInput(value, *options.randomSeed, options.shapes);
        if (!t)
            return t.takeError();
        feeds.emplace_back(value.name, RuntimeValue::ofTensor(std::move(*t)));
    }
    if (!unfed.empty())
        return makeError("missing-feed", "no value given for input(s) " + unfed + ": feed them with --inputs DIR (input_K.pb "
                                         "files), --input NAME=FILE.pb or NAME=FILE.npy, or --input NAME=random[:SEED]",
                         model.sourcePath);
    return feeds;
}

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

support::Expected<NamedValues> FeedCommandOptions::feeds(const QCommandLineParser &parser, const ir::Model &model) const
{
    auto dims = shapes(parser);
    if (!dims)
        return dims.takeError();
    std::optional<std::uint64_t> randomSeed;
    if (withSeed) {
        bool ok = false;
        randomSeed = parser.value(seed).toULongLong(&ok);
        if (!ok)
            return makeError("bad-usage", "--seed takes a non-negative number");
    }
    return buildFeeds(model, {parser.value(inputs).toStdString(), parser.values(input), *dims, randomSeed});
}

} // namespace portolan::cli
