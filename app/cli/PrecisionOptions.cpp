// Precision options of `portolan run` → PrecisionPolicy, and their part of the run's summary.
#include "cli/PrecisionOptions.h"

#include <cstdio>
#include <map>

namespace portolan::cli {

using namespace runtime::cpu;
using support::makeError;

void PrecisionOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions({precision, keepFp32, calibration, calibrationMethod, calibrationTable, saveCalibration});
}

bool PrecisionOptions::anySet(const QCommandLineParser &parser) const
{
    return parser.isSet(keepFp32) || anyButKeepSet(parser);
}

bool PrecisionOptions::anyButKeepSet(const QCommandLineParser &parser) const
{
    for (const QCommandLineOption *o : {&precision, &calibration, &calibrationMethod, &calibrationTable, &saveCalibration})
        if (parser.isSet(*o))
            return true;
    return false;
}

support::Expected<std::vector<KeepFp32Rule>> keepFp32Rules(const QCommandLineParser &parser, const PrecisionOptions &options)
{
    std::vector<KeepFp32Rule> rules;
    for (const QString &text : parser.values(options.keepFp32)) {
        auto rule = KeepFp32Rule::parse(text.toStdString());
        if (!rule)
            return rule.takeError();
        rules.push_back(std::move(*rule));
    }
    return rules;
}


support::Expected<session::LoweringSettings> loweringSettings(const QCommandLineParser &parser, const PrecisionOptions &options,
                                                              bool int8, bool force)
{
    session::LoweringSettings settings;
    auto rules = keepFp32Rules(parser, options);
    if (!rules)
        return rules.takeError();
    settings.keepFp32 = std::move(*rules);
    const bool calibrating = parser.isSet(options.calibration);
    const bool loading = parser.isSet(options.calibrationTable);
    if (!int8 && (calibrating || loading || parser.isSet(options.saveCalibration) || parser.isSet(options.calibrationMethod)))
        return makeError("bad-usage", "the calibration options go with int8 (--precision int8, cpu:int8 or cuda:int8)");
    if (!int8)
        return settings;
    if (calibrating == loading)
        return makeError("bad-usage", "--precision int8 needs one of --calibration DIR|random:N[:SEED] (to calibrate) or "
                                      "--calibration-table FILE (to load the ranges)");
    if (loading && parser.isSet(options.calibrationMethod))
        return makeError("bad-usage", "--calibration-method applies when calibrating, not to a loaded table");
    auto method = CalibrationSettings::parse(parser.value(options.calibrationMethod).toStdString());
    if (!method)
        return method.takeError();
    settings.calibrationMethod = *method;
    settings.calibration = parser.value(options.calibration).toStdString();
    settings.calibrationTable = parser.value(options.calibrationTable).toStdString();
    settings.saveCalibration = parser.value(options.saveCalibration).toStdString();
    settings.overwriteCalibration = force;
    return settings;
}

support::Expected<PrecisionPolicy> resolvePrecisionPolicy(const QCommandLineParser &parser, const PrecisionOptions &options,
                                                          const ir::Model &model,
                                                          const std::map<std::string, runtime::Shape> &shapes, bool force,
                                                          const runtime::RunOptions &runOptions, const std::string &precisionOverride)
{
    const std::string precision = precisionOverride.empty() ? parser.value(options.precision).toStdString() : precisionOverride;
    auto parsed = parsePrecision(precision);
    if (!parsed)
        return parsed.takeError();
    auto settings = loweringSettings(parser, options, *parsed == Precision::Int8, force);
    if (!settings)
        return settings.takeError();
    return session::resolvePrecisionPolicy(precision, *settings, model, shapes, runOptions);
}

void writePrecisionJson(support::JsonWriter &w, const CompiledGraph &profile, const PrecisionPolicy &policy)
{
    std::map<std::string, std::uint64_t> counts;
    for (const NodeProfile &n : profile.nodes())
        ++counts[n.precision];
    w.key("precision").beginObject().field("policy", precisionName(policy.precision));
    w.key("keep_fp32").beginArray();
    for (const KeepFp32Rule &rule : policy.keepFp32)
        w.value(rule.text);
    w.endArray();
    w.key("nodes").beginObject();
    for (const auto &[name, count] : counts)
        w.field(name, count);
    w.endObject();
    if (policy.calibration) {
        const CalibrationTable &table = *policy.calibration;
        w.key("calibration").beginObject().field("method", table.settings.describe()).field("batches", table.batches)
            .field("tensors", static_cast<std::uint64_t>(table.ranges.size())).endObject();
    }
    w.endObject();
}

void printPrecisionCounts(const std::string &policy, const std::vector<std::pair<std::string, std::string>> &nodes)
{
    std::map<std::string, int> counts, reasons;
    for (const auto &[precision, why] : nodes) {
        if (precision.empty()) // a node that runs nothing (a constant)
            continue;
        ++counts[precision];
        if (precision == "fp32" && !why.empty())
            ++reasons[why];
    }
    std::string line;
    for (const auto &[name, count] : counts)
        line += (line.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    std::printf("  precision %s policy, nodes: %s\n", policy.c_str(), line.c_str());
    for (const auto &[reason, count] : reasons)
        std::printf("    %4d at fp32: %s\n", count, reason.c_str());
}

void printPrecisionSummary(const CompiledGraph &profile, const PrecisionPolicy &policy)
{
    if (policy.precision == Precision::Fp32)
        return;
    std::vector<std::pair<std::string, std::string>> nodes;
    for (const NodeProfile &n : profile.nodes())
        nodes.emplace_back(n.precision, n.whyPrecision);
    printPrecisionCounts(precisionName(policy.precision), nodes);
    if (policy.calibration)
        std::printf("  calibration: %s over %d batch(es), %zu tensors\n", policy.calibration->settings.describe().c_str(),
                    policy.calibration->batches, policy.calibration->ranges.size());
}

} // namespace portolan::cli
