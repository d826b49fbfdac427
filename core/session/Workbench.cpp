// Workbench: loading, inspection, compiling and optimizing; comparison is in WorkbenchCompare.cpp.
#include "session/Workbench.h"

#include "session/ModelFindings.h"

#include "ir/ModelSaver.h"
#include "passes/FreezeShapes.h"
#include "runtime/ExecutorRegistry.h"
#include "runtime/TestDataSet.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <regex>

namespace portolan::session {

namespace {

/// True when both paths name the same file (or would, once written).
bool samePath(const std::string &a, const std::string &b)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec))
        return fs::equivalent(a, b, ec);
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

} // namespace

support::Status Workbench::adopt(support::Expected<ir::LoadedModel> loaded)
{
    if (!loaded) {
        spdlog::debug("load failed: {}", loaded.error().format());
        return loaded.takeError();
    }
    spdlog::debug("loaded {}: {} nodes in {} graphs, {} load warnings", loaded->model->sourcePath,
                  loaded->model->liveNodeCount(), loaded->model->graphCount(), loaded->warnings.size());
    m_model = std::move(loaded->model);
    m_loadWarnings = std::move(loaded->warnings);
    m_findings.reset();
    return support::Status::ok();
}

support::Status Workbench::open(const std::string &path, const ir::LoadOptions &options)
{
    spdlog::debug("loading {}", path);
    return adopt(ir::loadModelFile(path, options));
}

support::Status Workbench::openBytes(std::span<const std::byte> bytes, const std::string &displayName,
                                     const std::string &baseDir, const ir::LoadOptions &options)
{
    return adopt(ir::loadModelBytes(bytes, displayName, baseDir, options));
}

const support::Diagnostics &Workbench::findings()
{
    if (!m_findings)
        m_findings = modelFindings(*m_model, m_loadWarnings);
    return *m_findings;
}

analysis::ModelSummary Workbench::inspect()
{
    return analysis::summarize(*m_model, findings());
}

diagnose::TargetCheck Workbench::checkTarget(const diagnose::TargetProfile &profile,
                                             const diagnose::CheckOptions &options) const
{
    return diagnose::checkTarget(*m_model, profile, options);
}

support::Expected<std::map<std::string, std::vector<std::int64_t>>> Workbench::inputSizesOf(const std::string &testDataDir) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    auto inputs = runtime::readTestDataInputs(*m_model, testDataDir);
    if (!inputs)
        return inputs.takeError();
    std::map<std::string, std::vector<std::int64_t>> sizes;
    for (const auto &[name, value] : *inputs)
        if (value.isTensor())
            sizes[name] = value.tensor.shape();
    return sizes;
}

support::Expected<diagnose::ShapeAnalysis> Workbench::analyzeShapes(const diagnose::ShapeOptions &options,
                                                                    const std::string &inputsDir) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (inputsDir.empty())
        return diagnose::analyzeShapes(*m_model, options);
    auto sizes = inputSizesOf(inputsDir);
    if (!sizes)
        return sizes.takeError();
    auto given = passes::frozenInputShapes(*m_model, options.freeze); // what -i gave, by input name
    if (!given)
        return given.takeError();
    diagnose::ShapeOptions atTheirSizes = options;
    for (const auto &[name, shape] : *sizes) {
        if (given->contains(name))
            continue; // a size given with -i wins
        std::string dims;
        for (const std::int64_t d : shape)
            dims += (dims.empty() ? "" : "x") + std::to_string(d);
        atTheirSizes.freeze += (atTheirSizes.freeze.empty() ? "" : ",") + name + ":" + (dims.empty() ? "1" : dims);
    }
    return diagnose::analyzeShapes(*m_model, atTheirSizes);
}

support::Expected<passes::Pipeline> Workbench::pipelineFromText(const std::string &text)
{
    if (text == "-O0")
        return passes::Pipeline{}; // the model as loaded
    if (text.size() == 3 && text[0] == '-' && text[1] == 'O' && text[2] >= '1' && text[2] <= '3')
        return passes::presetPipeline(text[2] - '0');
    return passes::parsePipeline(text);
}

support::Expected<passes::CompileResult> Workbench::optimize(const passes::Pipeline &pipeline,
                                                              const passes::PassManagerOptions &options) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    return passes::runPipeline(*m_model, pipeline, options);
}

const std::vector<passes::PassInfo> &Workbench::passCatalog()
{
    return passes::registeredPasses();
}

std::string Workbench::executorDescription(const std::string &name)
{
    return runtime::describeExecutor(name);
}

diagnose::TargetListing Workbench::targetProfiles()
{
    return diagnose::listTargetProfiles();
}

support::Expected<diagnose::TargetProfile> Workbench::findTarget(const std::string &idOrPath)
{
    return diagnose::findTargetProfile(idOrPath);
}

support::Expected<OptimizeOutcome> Workbench::optimize(const OptimizeRequest &request) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (request.outputPath.empty())
        return support::makeError("bad-usage", "optimize needs an output file");
    if (samePath(m_model->sourcePath, request.outputPath))
        return support::makeError("bad-usage", "the output would overwrite the input model '" + m_model->sourcePath + "'");
    std::error_code ec;
    if (!request.overwrite && std::filesystem::exists(request.outputPath, ec))
        return support::makeError("file-exists", "'" + request.outputPath + "' exists (use --force to overwrite it)");
    auto result = optimize(request.pipeline, request.options);
    if (!result)
        return result.takeError();
    if (auto st = ir::saveModelFile(*result->model, request.outputPath,
                                    request.overwrite ? ir::Overwrite::Allow : ir::Overwrite::Refuse);
        !st)
        return st.error();
    OptimizeOutcome outcome{std::move(*result), {}};
    outcome.weightsPath = ir::externalDataFileFor(*outcome.optimized.model, request.outputPath);
    return outcome;
}

std::string Workbench::conformExecutorTitle(const std::string &executor)
{
    return executor == "reference" ? "Reference interpreter"
           : executor == "cpu"     ? "Compiled CPU executor"
           : executor == "cuda"    ? "CUDA executor"
                                   : executor;
}

support::Expected<conform::Report> Workbench::conform(const ConformRequest &request)
{
    std::optional<conform::RunnerFactory> runner;
    if (request.executor == "reference")
        runner = conform::referenceRunner();
    else if (request.executor == "cpu")
        runner = conform::compiledCpuRunner();
    else if (request.executor == "cuda") {
        runner = conform::pluggedRunner("cuda");
        if (!runner)
            return support::makeError("no-cuda", "this build has no CUDA executor (built without CUDA)");
    } else {
        return support::makeError("bad-usage", "executor '" + request.executor + "' is not one of: reference, cpu, cuda");
    }
    for (const std::string &root : request.roots) {
        std::error_code ec;
        if (!std::filesystem::is_directory(root, ec))
            return support::makeError("bad-usage", "'" + root + "' is not a directory");
    }
    auto usable = [](const conform::Tolerance &t) { return std::isfinite(t.atol) && std::isfinite(t.rtol) && t.atol >= 0 && t.rtol >= 0; };
    if (!usable(request.tolerances.base))
        return support::makeError("bad-usage", "atol and rtol take finite, non-negative numbers");
    for (const conform::CaseTolerance &o : request.tolerances.overrides) {
        if (!usable(o.tolerance))
            return support::makeError("bad-usage", "the tolerance for cases matching '" + o.pattern +
                                                       "' is not a pair of finite, non-negative numbers");
        try {
            (void)std::regex(o.pattern);
        } catch (const std::regex_error &) {
            return support::makeError("bad-usage", "'" + o.pattern + "' (a case-tolerance pattern) is not a valid regular expression");
        }
    }
    const auto cases = conform::findCases(request.roots);
    if (cases.empty())
        return support::makeError("bad-usage", "no test directories (with a model.onnx) found");
    try {
        (void)std::regex(request.filter);
    } catch (const std::regex_error &) {
        return support::makeError("bad-usage", "filter '" + request.filter + "' is not a valid regular expression");
    }
    if (request.executor == "cuda") // no GPU is one error, not one per test
        if (auto first = ir::loadModelFile(cases.front() + "/model.onnx"))
            if (auto made = (*runner)(*first->model); !made && made.error().primary.code == "no-gpu")
                return made.takeError();
    return conform::runAll(cases, request.filter, request.tolerances, *runner);
}

} // namespace portolan::session
