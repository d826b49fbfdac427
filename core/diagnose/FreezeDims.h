// The dims to freeze a model's open inputs at, as freeze-shapes takes them: the sizes given, then
// every symbolic dim that shares a name with a given one (`sequence` of input_ids and of
// attention_mask), or that names a sum of them ("past_sequence_length + sequence_length",
// "past_sequence_length + 1"), so related inputs stay consistent. Only a dim nothing tells is set
// to 1, and it is listed, so advice never rests on a silent 1.
#pragma once

#include "ir/Model.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace portolan::diagnose {

struct FrozenInputs {
    std::string text;                 ///< "x:1x3x224x224,mask:1x128"; empty when no input is open
    std::vector<std::string> unsized; ///< the dims set to 1 for want of a size: "x axis 2 (height)"
};

/// Every graph input with a symbolic or unknown dim (and every one in `given`, by input name).
FrozenInputs freezeOpenInputs(const ir::Model &model, const std::map<std::string, std::vector<std::int64_t>> &given = {});

/// "1 stands for x axis 2 (height) and x axis 3 (width)"; empty when nothing was set to 1.
std::string unsizedNote(const FrozenInputs &frozen);

} // namespace portolan::diagnose
