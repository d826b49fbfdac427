// Precision options → LoweringSettings (see PrecisionOptions.h).
#include "cli/PrecisionOptions.h"


namespace portolan::cli {

using namespace runtime;
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

} // namespace portolan::cli
