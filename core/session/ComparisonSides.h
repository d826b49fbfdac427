// The runs a comparison request names, made runnable: each SideSpec becomes a compare::RunSide
// over the model it runs (the model as loaded, or the compiled sides' model), with the executors
// it needs kept alive here. int8 calibrates once per comparison, however many sides run at it.
#pragma once

#include "compare/RunComparison.h"
#include "runtime/Executor.h"
#include "runtime/Precision.h"
#include "session/Comparison.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace portolan::session {

class ComparisonSides {
public:
    /// `compiled` is the model compiled sides run (the loaded model when the pipeline has no passes);
    /// `modelPath` is the file an external command is handed.
    ComparisonSides(const ComparisonRequest &request, const ir::Model &loaded, const ir::Model &compiled, std::string modelPath)
        : m_request(request), m_loaded(loaded), m_compiled(compiled), m_modelPath(std::move(modelPath))
    {
    }

    /// The side `spec` names. `profiled`: a plugged executor measures its runs (acceleratorProfile()).
    support::Expected<compare::RunSide> make(const SideSpec &spec, bool profiled = false);
    /// The precision policy of compiled sides at `precision` (int8: calibrated on the compiled model, once).
    support::Expected<runtime::PrecisionPolicy> policy(const std::string &precision);

    /// The executor the last compiled side was made with (cpu or plugged), if any.
    runtime::Executor *lastCompiled() const { return m_compiledExecutors.empty() ? nullptr : m_compiledExecutors.back().get(); }
    /// Imported tensors no value of the model is named after.
    const std::vector<std::string> &unknownImported() const { return m_unknownImported; }

private:
    const ComparisonRequest &m_request;
    const ir::Model &m_loaded, &m_compiled;
    std::string m_modelPath;
    std::map<std::string, runtime::PrecisionPolicy> m_policies;
    std::vector<std::shared_ptr<runtime::Executor>> m_compiledExecutors;
    std::vector<std::string> m_unknownImported;
};

} // namespace portolan::session
