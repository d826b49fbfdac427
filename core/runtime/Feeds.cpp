// Graph-input feeds from a FeedSpec (see Feeds.h for the seed rule).
#include "runtime/Feeds.h"

#include "runtime/InputGeneration.h"
#include "runtime/NumpyFiles.h"
#include "runtime/TestDataSet.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace portolan::runtime {

using support::makeError;

namespace {

/// The shape a random value for `input` takes: given in `spec.shapes`, or the declared one with its
/// symbolic dims set to `spec.symbolicDimsAs` when that is set; empty map entry otherwise (randomInput
/// then names the dim that is missing).
std::map<std::string, Shape> shapesFor(const ir::Value &input, const FeedSpec &spec)
{
    if (spec.shapes.contains(input.name) || !spec.symbolicDimsAs)
        return spec.shapes;
    std::map<std::string, Shape> shapes = spec.shapes;
    const ir::Shape declared = input.shape();
    if (declared.rankKnown() && !declared.isStatic()) {
        Shape dims;
        for (const ir::Dim &d : *declared.dims)
            dims.push_back(d.isStatic() ? d.extent() : *spec.symbolicDimsAs);
        shapes[input.name] = dims;
    }
    return shapes;
}

} // namespace

support::Expected<NamedValues> buildFeeds(const ir::Model &model, const FeedSpec &spec)
{
    const ir::Graph &main = model.graph(model.mainGraph());
    NamedValues feeds;
    if (!spec.testDataDir.empty()) {
        auto read = readTestDataInputs(model, spec.testDataDir);
        if (!read)
            return read.takeError();
        feeds = std::move(*read);
    }
    // k of the seed rule, by input name
    std::map<std::string, std::size_t> ordinal;
    for (const ir::ValueId id : main.inputs)
        if (!model.value(id).isInitializer())
            ordinal.emplace(model.value(id).name, ordinal.size());
    auto randomValue = [&](const ir::Value &input, std::uint64_t seed) -> support::Expected<RuntimeValue> {
        auto tensor = randomInput(input, seed, shapesFor(input, spec));
        if (!tensor)
            return tensor.takeError();
        return RuntimeValue::ofTensor(std::move(*tensor));
    };

    for (const InputSource &source : spec.sources) {
        const auto id = std::find_if(main.inputs.begin(), main.inputs.end(),
                                     [&](ir::ValueId v) { return model.value(v).name == source.input; });
        if (id == main.inputs.end())
            return makeError("bad-input", "the model has no graph input named '" + source.input + "'" +
                                              (source.file.empty() ? "" : " (for " + source.file + ")"),
                             model.sourcePath);
        const ir::Value &input = model.value(*id);
        std::erase_if(feeds, [&](const auto &f) { return f.first == input.name; });
        auto value = !source.file.empty() ? readFeedFile(source.file, input)
                                          : randomValue(input, source.seed ? *source.seed
                                                                           : inputSeed(spec.seed.value_or(kDefaultSeed),
                                                                                       ordinal[input.name], spec.batch));
        if (!value)
            return value.takeError();
        feeds.emplace_back(input.name, std::move(*value));
    }

    std::string unfed;
    for (const ir::ValueId id : main.inputs) {
        const ir::Value &input = model.value(id);
        const bool fed = std::any_of(feeds.begin(), feeds.end(), [&](const auto &f) { return f.first == input.name; });
        if (fed || input.isInitializer())
            continue;
        if (!spec.seed) {
            unfed += (unfed.empty() ? "'" : ", '") + input.name + "'";
            continue;
        }
        auto value = randomValue(input, inputSeed(*spec.seed, ordinal[input.name], spec.batch));
        if (!value)
            return value.takeError();
        feeds.emplace_back(input.name, std::move(*value));
    }
    if (!unfed.empty())
        return makeError("missing-feed", "no value given for input(s) " + unfed, model.sourcePath);
    return feeds;
}

support::Expected<NamedValues> randomFeeds(const ir::Model &model, std::uint64_t seed, std::uint64_t batch,
                                           const std::map<std::string, Shape> &shapes)
{
    FeedSpec spec;
    spec.seed = seed;
    spec.batch = batch;
    spec.shapes = shapes;
    return buildFeeds(model, spec);
}

support::Expected<InputSource> parseInputSource(const std::string &spec)
{
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        return makeError("bad-input", "input '" + spec + "' is not NAME=FILE.pb, NAME=FILE.npy or NAME=random[:SEED]");
    InputSource source{spec.substr(0, eq), spec.substr(eq + 1), std::nullopt};
    if (source.file == "random") {
        source.file.clear();
    } else if (source.file.starts_with("random:")) {
        const std::string digits = source.file.substr(7);
        char *end = nullptr;
        errno = 0;
        const unsigned long long seed = std::strtoull(digits.c_str(), &end, 10);
        if (digits.empty() || *end != '\0' || errno == ERANGE || digits.front() == '-')
            return makeError("bad-input", "input '" + spec + "': the seed is not a number");
        source.file.clear();
        source.seed = seed;
    }
    return source;
}

} // namespace portolan::runtime
