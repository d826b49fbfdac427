// The ops whose output shape is read from the values of one of their inputs (Reshape's `shape`,
// Expand's dims, Range's limit…): where a run-time value becomes a dim.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace portolan::diagnose {

/// Ops whose output shape is read from the values of an input (which input, for the reason).
inline std::optional<std::size_t> shapeOperand(const std::string &opType)
{
    static const std::map<std::string, std::size_t> operands = {
        {"Reshape", 1},  {"Expand", 1},    {"Tile", 1},   {"ConstantOfShape", 0}, {"Slice", 1}, {"Pad", 1},
        {"Resize", 2},   {"Upsample", 1},  {"OneHot", 1}, {"TopK", 1},            {"Range", 1}, {"Squeeze", 1},
        {"Unsqueeze", 1}, {"Split", 1},    {"CenterCropPad", 1},
    };
    const auto it = operands.find(opType);
    return it == operands.end() ? std::nullopt : std::optional<std::size_t>(it->second);
}

} // namespace portolan::diagnose
