// `portolan bisect-precision MODEL --precision fp16|bf16|int8 [--calibration …] [-O2 | --pipeline P]
//  [--inputs DIR] [--input NAME=…]… [--shape NAME=D,…]… [--seed N] [--atol A] [--rtol R] [--json]`:
// finds a small set of nodes to keep at fp32 so that the compiled run at that precision meets the
// tolerance against the reference interpreter, and prints it as --keep-fp32 rules.
#include "cli/Arguments.h"
#include "cli/Command.h"
#include "cli/Feeds.h"
#include "cli/PassOptions.h"
#include "cli/PrecisionOptions.h"
#include "cli/ToleranceOptions.h"

#include "session/Workbench.h"
#include "support/JsonWriter.h"
#include "support/NumberText.h"

#include <cstdio>

namespace portolan::cli {

namespace {

int fail(const std::string &message)
{
    std::fprintf(stderr, "portolan bisect-precision: error: %s\n", message.c_str());
    return kExitUsage;
}

} // namespace

int runBisectPrecision(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption json("json", "Print the result as JSON.");
    parser.addOption(json);
    FeedCommandOptions feedOptions;
    feedOptions.withSeed = true;
    feedOptions.addTo(parser);
    const ToleranceOptions toleranceOptions;
    toleranceOptions.addTo(parser);
    const PassOptions passOptions;
    passOptions.addTo(parser);
    const PrecisionOptions precisionOptions;
    precisionOptions.addTo(parser);
    parser.addPositionalArgument("MODEL", "The .onnx model whose lowered run fails.");
    if (auto exit = parseArguments(parser, "bisect-precision",
                                   "Find the nodes to keep at fp32 for a lowered run to meet its tolerance.", arguments, 1, 1))
        return *exit;
    if (auto st = passOptions.check(parser); !st)
        return fail(st.error().format());

    session::ComparisonRequest request;
    const std::string precision = parser.value(precisionOptions.precision).toStdString();
    auto parsed = runtime::parsePrecision(precision);
    if (!parsed)
        return fail(parsed.error().format());
    if (*parsed == runtime::Precision::Fp32)
        return fail("give the failing precision: --precision fp16, bf16 or int8");
    request.b = session::SideSpec::compiled("cpu", precision);
    request.pipeline = passOptions.text(parser, 2);
    auto lowering = loweringSettings(parser, precisionOptions, *parsed == runtime::Precision::Int8, false);
    if (!lowering)
        return fail(lowering.error().format());
    request.lowering = std::move(*lowering);
    auto feeds = feedOptions.spec(parser);
    if (!feeds)
        return fail(feeds.error().format());
    request.feeds = std::move(*feeds);
    if (auto st = toleranceOptions.applyTo(parser, request); !st)
        return fail(st.error().format());

    const std::string path = parser.positionalArguments().front().toStdString();
    session::Workbench workbench;
    if (auto st = workbench.open(path); !st)
        return fail(st.error().format());
    auto result = workbench.bisectPrecision(request);
    if (!result)
        return fail(withFeedHint(result.takeError()).format());
    const compare::Tolerance &tolerance = result->tolerance;
    const std::string held = "atol " + support::shortNumber(tolerance.atol) + (tolerance.atolPerScale ? " × scale" : "") + ", rtol " +
                             support::shortNumber(tolerance.rtol);

    std::string rules;
    for (const std::string &name : result->keepFp32)
        rules += (rules.empty() ? "" : " ") + std::string("--keep-fp32 'node:") + name + "'";
    if (parser.isSet(json)) {
        support::JsonWriter w;
        w.beginObject().field("model", path).field("pipeline", request.pipeline)
            .field("precision", precision)
            .field("atol", tolerance.atol).field("atol_per_scale", tolerance.atolPerScale).field("rtol", tolerance.rtol)
            .field("needed_nothing", result->neededNothing)
            .field("candidates", static_cast<std::uint64_t>(result->candidates))
            .field("runs", static_cast<std::uint64_t>(result->runs)).field("worst_error", result->worstError);
        w.key("keep_fp32").beginArray();
        for (const std::string &name : result->keepFp32)
            w.value("node:" + name);
        w.endArray().endObject();
        std::printf("%s\n", w.str().c_str());
        return kExitOk;
    }
    if (result->neededNothing) {
        std::printf("%s at %s already meets %s: nothing to keep at fp32\n", path.c_str(), precision.c_str(), held.c_str());
        return kExitOk;
    }
    std::printf("Keep %zu of the %zu nodes %s lowers at fp32 to meet %s (worst output error %.3g of its scale, %zu runs):\n  %s\n",
                result->keepFp32.size(), result->candidates, precision.c_str(), held.c_str(), result->worstError, result->runs,
                rules.c_str());
    return kExitOk;
}

} // namespace portolan::cli
