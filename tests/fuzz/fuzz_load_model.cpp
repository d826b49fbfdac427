// libFuzzer target: arbitrary bytes → load → ONNX checker → shape inference → summary → save → reload.
//
// Every step may refuse the input (an Expected/Status error, diagnostics); none may crash, trip a
// sanitizer, hang or allocate without bound. Run it with scripts/fuzz.sh fuzz_load_model SECONDS.
// With PORTOLAN_FUZZ_STRICT_ROUNDTRIP=1 in the environment, a model that loaded but whose saved
// bytes do not load again aborts (a saver/loader disagreement rather than a crash).
#include "analysis/ModelChecker.h"
#include "analysis/ModelSummary.h"
#include "analysis/ShapeInference.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

using namespace portolan;

namespace {

bool strictRoundTrip()
{
    static const bool strict = [] {
        const char *value = std::getenv("PORTOLAN_FUZZ_STRICT_ROUNDTRIP");
        return value != nullptr && std::string(value) == "1";
    }();
    return strict;
}

ir::LoadOptions fuzzLoadOptions()
{
    ir::LoadOptions options;
    // External data would read files relative to the working folder: what it does with hostile
    // locations is tests/data/hostile/external_escapes.onnx's business, not a fuzzer's.
    options.loadExternalData = false;
    return options;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    spdlog::set_level(spdlog::level::off); // the loader's warnings would drown libFuzzer's status lines
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
    auto loaded = ir::loadModelBytes(bytes, "fuzz input", "", fuzzLoadOptions());
    if (!loaded)
        return 0;
    const ir::Model &model = *loaded->model;

    support::Diagnostics findings = loaded->warnings;
    const support::Diagnostics checked = analysis::checkModel(model);
    findings.insert(findings.end(), checked.begin(), checked.end());
    analysis::ShapeInferenceResult inferred = analysis::inferShapes(model);
    findings.insert(findings.end(), inferred.findings.begin(), inferred.findings.end());
    (void)analysis::inferShapesLenient(model);
    const analysis::ModelSummary summary = analysis::summarize(model, std::move(findings));
    (void)summary;

    const std::string saved = ir::serializeModel(model);
    const std::span<const std::byte> savedBytes(reinterpret_cast<const std::byte *>(saved.data()), saved.size());
    auto reloaded = ir::loadModelBytes(savedBytes, "fuzz input (saved)", "", fuzzLoadOptions());
    if (!reloaded && strictRoundTrip()) {
        std::fprintf(stderr, "saved model does not load again: %s\n", reloaded.error().format().c_str());
        std::abort();
    }
    if (reloaded)
        (void)ir::serializeModel(*reloaded->model);
    return 0;
}
