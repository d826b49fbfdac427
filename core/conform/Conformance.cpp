// Conformance runs: load, feed test_data_set inputs, compare outputs (ONNX's tolerances; exact for
// integers, bools and strings). Training ops are set aside; ops with random outputs are checked for
// type and shape only.
#include "conform/Conformance.h"

#include "ir/ModelLoader.h"
#include "ir/Type.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/ExecutorRegistry.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"
#include "runtime/Dispatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

namespace portolan::conform {

namespace fs = std::filesystem;
using runtime::RuntimeValue;
using runtime::Tensor;

const char *outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Error: return "error";
    case Outcome::Random: return "random";
    case Outcome::Skipped: return "skipped";
    }
    return "error";
}

namespace {

const std::set<std::string> &trainingOps()
{
    static const std::set<std::string> ops{"Adagrad", "Adam", "Momentum", "Gradient"};
    return ops;
}


void collectOps(const ir::Model &model, std::set<std::string> &ops)
{
    for (std::size_t i = 0; i < model.nodeCapacity(); ++i) {
        const ir::Node &n = model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
        if (n.alive)
            ops.insert(n.domain.empty() ? n.opType : n.domain + "::" + n.opType);
    }
}

std::string describeIndex(const runtime::Shape &shape, std::int64_t flat)
{
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        index[k] = shape[k] ? flat % shape[k] : 0;
        flat = shape[k] ? flat / shape[k] : 0;
    }
    return runtime::shapeString(index);
}

// Empty when they match; else what differs (the worst element for numbers).
std::string compareTensors(const Tensor &actual, const Tensor &expected, const Tolerance &tol)
{
    if (actual.dataType() != expected.dataType())
        return "element type " + ir::dataTypeName(actual.dataType()) + ", expected " +
               ir::dataTypeName(expected.dataType());
    if (actual.shape() != expected.shape())
        return "shape " + runtime::shapeString(actual.shape()) + ", expected " + runtime::shapeString(expected.shape());
    if (actual.dataType() == onnx::TensorProto::STRING) {
        for (std::int64_t i = 0; i < actual.size(); ++i)
            if (actual.strings()[static_cast<std::size_t>(i)] != expected.strings()[static_cast<std::size_t>(i)])
                return "string at " + describeIndex(actual.shape(), i) + " is '" +
                       actual.strings()[static_cast<std::size_t>(i)] + "', expected '" +
                       expected.strings()[static_cast<std::size_t>(i)] + "'";
        return {};
    }
    const bool isFloat = runtime::kernels::isHalfType(actual.dataType()) ||
                         actual.dataType() == onnx::TensorProto::FLOAT || actual.dataType() == onnx::TensorProto::DOUBLE;
    const Tensor a = runtime::kernels::convertTensor(actual, onnx::TensorProto::DOUBLE);
    const Tensor e = runtime::kernels::convertTensor(expected, onnx::TensorProto::DOUBLE);
    // Every element outside the tolerance counts; the one named is the largest error among them
    // (not the one furthest past its allowance, which favours elements whose expected value is near 0).
    std::int64_t worst = -1;
    double worstError = 0;
    std::int64_t mismatches = 0;
    for (std::int64_t i = 0; i < a.size(); ++i) {
        const double x = a.data<double>()[i];
        const double y = e.data<double>()[i];
        if ((std::isnan(x) && std::isnan(y)) || x == y)
            continue;
        // never NaN: a NaN on one side is an infinite error, and equal infinities were skipped above
        const double error = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(x - y);
        const double allowed = isFloat ? tol.atol + tol.rtol * std::fabs(y) : 0.0;
        if (error > allowed) {
            ++mismatches;
            if (worst < 0 || error > worstError) {
                worst = i;
                worstError = error;
            }
        }
    }
    if (worst < 0)
        return {};
    char buffer[240];
    std::snprintf(buffer, sizeof buffer, "%lld of %lld elements differ; the largest error, %.3g, at %s: %.9g, expected %.9g",
                  static_cast<long long>(mismatches), static_cast<long long>(a.size()), worstError,
                  describeIndex(a.shape(), worst).c_str(), a.data<double>()[worst], e.data<double>()[worst]);
    return buffer;
}

std::string compareValues(const RuntimeValue &actual, const RuntimeValue &expected, const Tolerance &tol)
{
    if (actual.kind != expected.kind)
        return "got " + actual.describe() + ", expected " + expected.describe();
    if (actual.kind == RuntimeValue::Kind::Tensor)
        return compareTensors(actual.tensor, expected.tensor, tol);
    if (actual.kind == RuntimeValue::Kind::Sequence) {
        if (actual.sequence.size() != expected.sequence.size())
            return "sequence of " + std::to_string(actual.sequence.size()) + ", expected " +
                   std::to_string(expected.sequence.size());
        for (std::size_t i = 0; i < actual.sequence.size(); ++i)
            if (auto d = compareTensors(actual.sequence[i], expected.sequence[i], tol); !d.empty())
                return "item " + std::to_string(i) + ": " + d;
    }
    return {};
}

} // namespace

std::vector<std::string> findCases(const std::vector<std::string> &roots)
{
    std::vector<std::string> cases;
    for (const std::string &root : roots) {
        if (fs::exists(fs::path(root) / "model.onnx")) {
            cases.push_back(root);
            continue;
        }
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_regular_file() && it->path().filename() == "model.onnx")
                cases.push_back(it->path().parent_path().string());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

RunnerFactory referenceRunner()
{
    return [](const ir::Model &model) -> support::Expected<Runner> {
        auto interpreter = std::make_shared<runtime::Interpreter>(model);
        if (auto st = interpreter->checkSupported(); !st)
            return st.error();
        return Runner([interpreter](const runtime::NamedValues &feeds, const runtime::RunOptions &options) {
            return interpreter->run(feeds, options);
        });
    };
}

RunnerFactory compiledCpuRunner()
{
    return [](const ir::Model &model) -> support::Expected<Runner> {
        auto cpu = std::make_shared<runtime::cpu::CpuExecutor>(model);
        if (auto st = cpu->checkSupported(); !st)
            return st.error();
        return Runner([cpu](const runtime::NamedValues &feeds, const runtime::RunOptions &options) { return cpu->run(feeds, options); });
    };
}

std::optional<RunnerFactory> pluggedRunner(const std::string &name)
{
    const runtime::PluggedExecutorFactory factory = runtime::findExecutor(name);
    if (factory == nullptr)
        return std::nullopt;
    return [factory](const ir::Model &model) -> support::Expected<Runner> {
        auto made = factory(model, runtime::PluggedOptions{});
        if (!made)
            return made.error();
        std::shared_ptr<runtime::Executor> executor = std::move(*made);
        return Runner([executor](const runtime::NamedValues &feeds, const runtime::RunOptions &options) {
            return executor->run(feeds, options);
        });
    };
}

CaseResult runCase(const std::string &dir, const Tolerance &tolerance, const RunnerFactory &runner)
{
    const auto start = std::chrono::steady_clock::now();
    CaseResult result;
    result.path = dir;
    result.tolerance = tolerance;
    result.name = fs::path(dir).filename().string();
    result.suite = fs::path(dir).parent_path().filename().string();
    auto finish = [&](Outcome outcome, std::string detail) {
        result.outcome = outcome;
        result.detail = std::move(detail);
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    };

    auto loaded = ir::loadModelFile((fs::path(dir) / "model.onnx").string());
    if (!loaded)
        return finish(Outcome::Error, loaded.error().format());
    const ir::Model &model = *loaded->model;
    std::set<std::string> ops;
    collectOps(model, ops);
    result.ops.assign(ops.begin(), ops.end());
    auto opTypeOf = [](const std::string &qualified) { return qualified.substr(qualified.rfind(':') + 1); };
    for (const std::string &op : ops)
        if (trainingOps().contains(opTypeOf(op)))
            return finish(Outcome::Skipped, "training op " + op);
    // Outputs are random when a random op runs, or a Dropout whose training_mode comes from outside.
    bool random = false;
    for (std::size_t i = 0; i < model.nodeCapacity(); ++i) {
        const ir::Node &n = model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
        random = random || n.drawsRandomNumbers() || (n.opType == "Dropout" && n.inputs.size() >= 3 && n.inputs[2].valid());
    }

    auto run = runner(model);
    if (!run)
        return finish(Outcome::Error, run.error().primary.message);

    std::vector<fs::path> sets;
    for (const auto &entry : fs::directory_iterator(dir))
        if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
            sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty())
        return finish(Outcome::Error, "no test_data_set_N directory");

    std::string randomNote;
    for (const fs::path &set : sets) {
        auto feeds = runtime::readTestDataInputs(model, set.string());
        if (!feeds)
            return finish(Outcome::Error, feeds.error().format());
        auto expected = runtime::readTestDataOutputs(model, set.string());
        if (!expected)
            return finish(Outcome::Error, expected.error().format());
        runtime::RunOptions options;
        options.checkInputShapes = false; // as ONNX's runner: a few tests feed other shapes than declared
        auto outputs = (*run)(*feeds, options);
        if (!outputs)
            return finish(Outcome::Error, outputs.error().format());
        for (std::size_t k = 0; k < outputs->size(); ++k) {
            const RuntimeValue &actual = (*outputs)[k].second;
            const RuntimeValue &wanted = (*expected)[k].second;
            const std::string diff = compareValues(actual, wanted, tolerance);
            if (diff.empty())
                continue;
            const std::string where = set.filename().string() + " output '" + (*outputs)[k].first + "': ";
            // random outputs can only match in type and shape
            const bool sameKind = actual.isTensor() && wanted.isTensor() &&
                                  actual.tensor.dataType() == wanted.tensor.dataType() &&
                                  actual.tensor.shape() == wanted.tensor.shape();
            if (!random || !sameKind)
                return finish(Outcome::Fail, where + diff);
            randomNote = "random output: type and shape match, values are not comparable";
        }
        ++result.dataSets;
    }
    if (!randomNote.empty())
        return finish(Outcome::Random, randomNote);
    return finish(Outcome::Pass, {});
}

Tolerance Tolerances::forCase(const std::string &name) const
{
    Tolerance chosen = base;
    for (const CaseTolerance &o : overrides)
        if (std::regex_search(name, std::regex(o.pattern)))
            chosen = o.tolerance;
    return chosen;
}

Report runAll(const std::vector<std::string> &dirs, const std::string &filter, const Tolerances &tolerances,
              const RunnerFactory &runner)
{
    Report report;
    const std::regex pattern(filter.empty() ? ".*" : filter);
    for (const std::string &dir : dirs) {
        if (!std::regex_search(fs::path(dir).filename().string(), pattern))
            continue;
        CaseResult r = runCase(dir, tolerances.forCase(fs::path(dir).filename().string()), runner);
        ++report.totals[r.outcome];
        for (const std::string &op : r.ops) {
            OpTally &t = report.byOp[op];
            switch (r.outcome) {
            case Outcome::Pass: ++t.pass; break;
            case Outcome::Fail: ++t.fail; break;
            case Outcome::Error: ++t.error; break;
            case Outcome::Random: ++t.random; break;
            case Outcome::Skipped: ++t.skipped; break;
            }
        }
        report.cases.push_back(std::move(r));
    }
    return report;
}

} // namespace portolan::conform
