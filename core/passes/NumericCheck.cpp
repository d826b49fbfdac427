// Seeded feeds, reference runs and the before/after comparison of a pass's numeric check.
#include "passes/NumericCheck.h"

#include "runtime/Feeds.h"
#include "runtime/Dispatch.h"

#include <cmath>

namespace portolan::passes {

using runtime::RuntimeValue;
using runtime::Tensor;

support::Expected<runtime::NamedValues> seededFeeds(const ir::Model &model, std::uint64_t seed,
                                                    const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                                    std::int64_t symbolicDim)
{
    runtime::FeedSpec spec;
    spec.seed = seed;
    spec.shapes = shapes;
    spec.symbolicDimsAs = symbolicDim;
    return runtime::buildFeeds(model, spec);
}

support::Expected<runtime::NamedValues> referenceOutputs(const ir::Model &model, const runtime::NamedValues &feeds)
{
    runtime::Interpreter interpreter(model);
    if (auto st = interpreter.checkSupported(); !st)
        return st.error();
    return interpreter.run(feeds);
}

// Folds one tensor pair into `check`; false (with the reason in `check`) when they cannot be compared.
static void compareTensor(const std::string &name, const Tensor &before, const Tensor &after, double atol, double rtol,
                          NumericCheck &check)
{
    auto fail = [&](const std::string &why) {
        check.withinTolerance = false;
        check.maxAbsError = INFINITY;
        check.worstOutput = name + ": " + why;
    };
    if (before.dataType() != after.dataType())
        return fail("element type changed");
    if (before.shape() != after.shape())
        return fail("shape " + runtime::shapeString(before.shape()) + " became " + runtime::shapeString(after.shape()));
    ++check.comparedOutputs;
    check.comparedElements += static_cast<std::size_t>(before.size());
    if (before.dataType() == onnx::TensorProto::STRING) {
        if (before.strings() != after.strings())
            fail("strings differ");
        return;
    }
    const bool exact = !runtime::kernels::isFloatingType(before.dataType());
    const Tensor b = runtime::kernels::convertTensor(before, onnx::TensorProto::DOUBLE);
    const Tensor a = runtime::kernels::convertTensor(after, onnx::TensorProto::DOUBLE);
    for (std::int64_t i = 0; i < b.size(); ++i) {
        const double x = b.data<double>()[i];
        const double y = a.data<double>()[i];
        if ((std::isnan(x) && std::isnan(y)) || x == y)
            continue;
        const double abs = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(x - y);
        const double rel = abs / std::max(std::fabs(x), 1e-12);
        if (abs > check.maxAbsError) {
            check.maxAbsError = abs;
            check.worstOutput = name;
        }
        check.maxRelError = std::max(check.maxRelError, rel);
        if (exact || !(abs <= atol + rtol * std::fabs(x)))
            check.withinTolerance = false;
    }
}

NumericCheck compareOutputs(const runtime::NamedValues &before, const runtime::NamedValues &after, double atol, double rtol)
{
    NumericCheck check;
    check.ran = true;
    if (before.size() != after.size()) {
        check.withinTolerance = false;
        check.worstOutput = std::to_string(before.size()) + " outputs became " + std::to_string(after.size());
        return check;
    }
    for (std::size_t i = 0; i < before.size(); ++i) {
        const RuntimeValue &b = before[i].second;
        const RuntimeValue &a = after[i].second;
        if (b.kind != a.kind) {
            check.withinTolerance = false;
            check.worstOutput = before[i].first + ": the kind of value changed";
            continue;
        }
        if (b.kind == RuntimeValue::Kind::Tensor)
            compareTensor(before[i].first, b.tensor, a.tensor, atol, rtol, check);
        else if (b.kind == RuntimeValue::Kind::Sequence && b.sequence.size() == a.sequence.size())
            for (std::size_t k = 0; k < b.sequence.size(); ++k)
                compareTensor(before[i].first + "[" + std::to_string(k) + "]", b.sequence[k], a.sequence[k], atol, rtol, check);
        else if (b.kind == RuntimeValue::Kind::Sequence) {
            check.withinTolerance = false;
            check.worstOutput = before[i].first + ": sequence length changed";
        }
    }
    if (check.comparedOutputs == 0 && check.withinTolerance) {
        // Comparing nothing is not a pass.
        check.withinTolerance = false;
        check.skippedReason = "no output could be compared";
    }
    return check;
}

} // namespace portolan::passes
