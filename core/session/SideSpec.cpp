// Side specs from and to their text, and a compiled side's precision policy (see SideSpec.h).
#include "session/SideSpec.h"

#include "compare/OnnxRuntime.h"

#include <filesystem>

namespace portolan::session {

using support::makeError;

SideSpec SideSpec::compiled(std::string executor, std::string precision)
{
    SideSpec side;
    side.kind = Kind::Compiled;
    side.executor = std::move(executor);
    side.precision = std::move(precision);
    return side;
}

SideSpec SideSpec::imported(std::string from)
{
    SideSpec side;
    side.kind = Kind::Imported;
    side.importFrom = std::move(from);
    return side;
}

SideSpec SideSpec::external(std::string command, double timeoutSeconds)
{
    SideSpec side;
    side.kind = Kind::External;
    side.command = std::move(command);
    side.timeoutSeconds = timeoutSeconds;
    return side;
}

SideSpec SideSpec::onnxRuntime(std::string level)
{
    SideSpec side;
    side.kind = Kind::OnnxRuntime;
    side.ortLevel = std::move(level);
    return side;
}

support::Expected<SideSpec> SideSpec::parse(const std::string &text)
{
    if (text == "ort")
        return onnxRuntime();
    if (text.starts_with("ort:")) {
        if (!compare::isOnnxRuntimeLevel(text.substr(4)))
            return makeError("bad-side", "'" + text + "': ONNX Runtime's levels are disabled, basic, extended and all");
        return onnxRuntime(text.substr(4));
    }
    if (text == "reference")
        return reference();
    if (text.starts_with("import:") && text.size() > 7)
        return imported(text.substr(7));
    if (text.starts_with("external:"))
        return external(text.substr(9));
    for (const char *executor : {"cpu", "cuda"}) {
        const std::string name = executor;
        if (text == name)
            return compiled(name, "fp32");
        if (!text.starts_with(name + ":"))
            continue;
        const std::string precision = text.substr(name.size() + 1);
        if (auto p = runtime::parsePrecision(precision); !p)
            return makeError("bad-side", "'" + text + "': " + name + " runs at fp32, fp16, bf16 or int8 (" + p.error().primary.message + ")");
        return compiled(name, precision);
    }
    return makeError("bad-side", "'" + text + "' is not reference, cpu, cpu:PRECISION (fp32, fp16, bf16, int8), cuda, "
                                              "cuda:PRECISION, import:PATH, external:CMD {model} {inputs} {outputs} or "
                                              "ort[:disabled|basic|extended|all]");
}

std::string SideSpec::label() const
{
    switch (kind) {
    case Kind::Reference: return "reference";
    case Kind::Compiled: return executor + ":" + precision;
    case Kind::Imported: return "import:" + importFrom;
    case Kind::External: return "external:" + command;
    case Kind::OnnxRuntime: return "ort:" + ortLevel;
    }
    return "reference";
}

support::Expected<runtime::PrecisionPolicy> resolvePrecisionPolicy(const std::string &precision, const LoweringSettings &settings,
                                                                       const ir::Model &model,
                                                                       const std::map<std::string, runtime::Shape> &shapes,
                                                                       const runtime::RunOptions &run)
{
    using runtime::CalibrationTable;
    runtime::PrecisionPolicy policy;
    auto parsed = runtime::parsePrecision(precision);
    if (!parsed)
        return parsed.takeError();
    policy.precision = *parsed;
    policy.keepFp32 = settings.keepFp32;
    const bool int8 = policy.precision == runtime::Precision::Int8;
    if (!int8 && (!settings.calibrationTable.empty() || !settings.saveCalibration.empty()))
        return makeError("bad-usage", "the calibration options go with int8 (--precision int8, cpu:int8 or cuda:int8)");
    if (!int8)
        return policy;

    CalibrationTable table;
    if (!settings.calibrationTable.empty()) {
        auto loaded = CalibrationTable::load(settings.calibrationTable);
        if (!loaded)
            return loaded.takeError();
        table = std::move(*loaded);
    } else {
        auto batches = runtime::cpu::calibrationBatches(settings.calibration, model, shapes);
        if (!batches)
            return batches.takeError();
        auto measured = runtime::cpu::calibrate(model, *batches, settings.calibrationMethod, run);
        if (!measured)
            return measured.takeError();
        table = std::move(*measured);
    }
    if (!settings.saveCalibration.empty()) {
        std::error_code ec;
        if (std::filesystem::exists(settings.saveCalibration, ec) && !settings.overwriteCalibration)
            return makeError("file-exists", "already exists (use --force to replace it)", settings.saveCalibration);
        if (auto st = table.save(settings.saveCalibration); !st)
            return st.error();
    }
    policy.calibration = std::make_shared<const CalibrationTable>(std::move(table));
    return policy;
}

} // namespace portolan::session
