// Workbench: loading, inspection and compiling; runs and comparison join as they land.
#include "session/Workbench.h"

#include "session/ModelFindings.h"

#include <spdlog/spdlog.h>

namespace portolan::session {

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

support::Expected<diagnose::ShapeAnalysis> Workbench::analyzeShapes(const diagnose::ShapeOptions &options) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    return diagnose::analyzeShapes(*m_model, options);
}

support::Expected<passes::Pipeline> Workbench::pipelineFromText(const std::string &text)
{
    if (text.size() == 3 && text[0] == '-' && text[1] == 'O' && text[2] >= '0' && text[2] <= '3')
        return passes::presetPipeline(text[2] - '0');
    return passes::parsePipeline(text);
}

support::Expected<passes::CompileResult> Workbench::compile(const passes::Pipeline &pipeline) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    passes::PassManagerOptions options;
    options.snapshots = true;
    return passes::runPipeline(*m_model, pipeline, options);
}

} // namespace portolan::session
