// The calibration table: per tensor, the largest |x| seen and where int8 clips, as a text file that
// can be saved, reviewed and loaded again (see CalibrationTable.h).
#include "runtime/CalibrationTable.h"

#include "support/StagedFile.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace portolan::runtime {

using support::makeError;

namespace {

constexpr const char *kMagic = "portolan-calibration 1";

std::string formatNumber(double x)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", x);
    return buffer;
}

} // namespace

support::Expected<CalibrationSettings> CalibrationSettings::parse(const std::string &text)
{
    CalibrationSettings s;
    if (text == "minmax") {
        s.method = CalibrationMethod::MinMax;
        return s;
    }
    if (text == "percentile")
        return s;
    if (text.starts_with("percentile:")) {
        const std::string number = text.substr(11);
        char *end = nullptr;
        const double p = std::strtod(number.c_str(), &end);
        if (!number.empty() && end && *end == '\0' && p > 0 && p <= 100) {
            s.percentile = p;
            return s;
        }
    }
    return makeError("bad-calibration-method", "calibration method '" + text +
                                                   "' is not minmax, percentile or percentile:P with 0 < P <= 100");
}

std::string CalibrationSettings::describe() const
{
    return method == CalibrationMethod::MinMax ? "minmax" : "percentile:" + formatNumber(percentile);
}

std::optional<float> CalibrationTable::scaleOf(const std::string &tensor) const
{
    const auto it = ranges.find(tensor);
    if (it == ranges.end())
        return std::nullopt;
    return static_cast<float>(it->second.threshold / 127);
}

std::string CalibrationTable::toText() const
{
    std::string out = std::string(kMagic) + "\nmethod " + settings.describe() + "\nbatches " + std::to_string(batches) +
                      "\n# abs_max threshold tensor\n";
    for (const auto &[name, range] : ranges)
        out += formatNumber(range.absMax) + " " + formatNumber(range.threshold) + " " + name + "\n";
    return out;
}

support::Expected<CalibrationTable> CalibrationTable::fromText(const std::string &text, const std::string &source)
{
    std::istringstream in(text);
    std::string line;
    int lineNumber = 0;
    auto bad = [&](const std::string &what) {
        return makeError("bad-calibration-table", source + ":" + std::to_string(lineNumber) + ": " + what);
    };
    ++lineNumber;
    if (!std::getline(in, line) || line != kMagic)
        return bad("not a Portolan calibration table (the first line is not '" + std::string(kMagic) + "')");
    CalibrationTable table;
    bool sawMethod = false;
    while (std::getline(in, line)) {
        ++lineNumber;
        if (line.empty() || line[0] == '#')
            continue;
        if (line.starts_with("method ")) {
            auto settings = CalibrationSettings::parse(line.substr(7));
            if (!settings)
                return bad(settings.error().primary.message);
            table.settings = *settings;
            sawMethod = true;
            continue;
        }
        if (line.starts_with("batches ")) {
            table.batches = std::atoi(line.c_str() + 8);
            continue;
        }
        const char *begin = line.c_str();
        char *end = nullptr;
        errno = 0;
        const double absMax = std::strtod(begin, &end);
        const char *afterAbsMax = end;
        const double threshold = std::strtod(afterAbsMax, &end);
        if (errno || afterAbsMax == begin || end == afterAbsMax || *end != ' ' || end[1] == '\0')
            return bad("expected 'ABS_MAX THRESHOLD TENSOR', got '" + line + "'");
        if (!(absMax >= 0) || !(threshold >= 0) || !std::isfinite(absMax) || !std::isfinite(threshold))
            return bad("the range of '" + std::string(end + 1) + "' is not a finite non-negative number");
        table.ranges[std::string(end + 1)] = {absMax, threshold};
    }
    if (!sawMethod)
        return bad("no 'method' line");
    return table;
}

support::Expected<CalibrationTable> CalibrationTable::load(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError("io", "cannot read calibration table '" + path + "': " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return fromText(text.str(), path);
}

support::Status CalibrationTable::save(const std::string &path) const
{
    // replacing a table is what --save-calibration asks for; it is written whole or not at all
    return support::writeFileWhole(path, toText(), support::Overwrite::Allow);
}

} // namespace portolan::runtime
