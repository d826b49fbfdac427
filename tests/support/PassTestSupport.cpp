// Pass-test helpers over the pass manager.
#include "support/PassTestSupport.h"

#include "passes/CompileReport.h"
#include "support/TestSupport.h"

#include <QTest>

namespace portolan::test {

std::optional<passes::CompileResult> runChecked(const ir::Model &model, const std::string &pipeline,
                                                passes::PassManagerOptions options)
{
    auto parsed = passes::parsePipeline(pipeline);
    if (!parsed) {
        QTest::qFail(parsed.error().format().c_str(), __FILE__, __LINE__);
        return std::nullopt;
    }
    options.verifyEach = true;
    options.checkNumerics = true;
    auto result = passes::runPipeline(model, *parsed, options);
    if (!result) {
        QTest::qFail(result.error().format().c_str(), __FILE__, __LINE__);
        return std::nullopt;
    }
    return std::move(*result);
}

std::unique_ptr<ir::Model> modelFromText(const std::string &text)
{
    auto loaded = loadModelText(text.c_str());
    if (!loaded) {
        QTest::qFail(loaded.error().format().c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    return std::move(loaded->model);
}

std::map<std::string, int> opHistogram(const ir::Model &model)
{
    return passes::opHistogram(model);
}

bool numericsHeld(const passes::CompileResult &result)
{
    bool any = false;
    for (const passes::PassResult &p : result.passes) {
        if (!p.changed)
            continue;
        const passes::NumericCheck &n = p.numerics;
        if (!n.ran || n.comparedOutputs == 0 || !n.withinTolerance) {
            qWarning("pass %s: numeric check %s (%s; max abs error %g at %s; culprit %s)", p.invocation.c_str(),
                     n.ran ? "failed" : "did not run", n.skippedReason.c_str(), n.maxAbsError, n.worstOutput.c_str(),
                     n.culpritRewrite.c_str());
            return false;
        }
        any = true;
    }
    if (!any) {
        qWarning("no pass changed the model, so nothing was checked numerically");
        return false;
    }
    const passes::NumericCheck &overall = result.overall;
    if (!overall.ran || !overall.withinTolerance) {
        qWarning("whole pipeline: numeric check %s (max abs error %g at %s)", overall.ran ? "failed" : "did not run",
                 overall.maxAbsError, overall.worstOutput.c_str());
        return false;
    }
    return true;
}

std::string failureReasons(const passes::CompileResult &result, const std::string &pass)
{
    std::string out;
    for (const passes::PassResult &p : result.passes)
        if (p.name == pass)
            for (const passes::MatchFailure &f : p.matchFailures)
                out += (out.empty() ? "" : "; ") + f.reason;
    return out;
}

} // namespace portolan::test
