// The README a repro folder carries: what was cut out and from where, what fails and by how much,
// the whole-model verdict on the node, how to run it, and the versions. Written by `portolan repro`
// and by the GUI's compare dock alike.
#pragma once

#include "compare/Repro.h"

#include <string>

namespace portolan::compare {

/// Where a repro came from, for its README.
struct ReproStory {
    std::string model;     ///< the model it was cut from
    std::string node, opType; ///< the node it was cut around, in run B's model
    std::string runB;      ///< "cpu:fp16"
    std::string pipeline;  ///< B's passes ("" for none)
    std::string tool = "`portolan repro`"; ///< what cut it
    std::string command;   ///< the command line that made it; "" when it was not a command
    std::string verdict;   ///< the kernel check's explanation of the node in the whole model, if any
    Tolerance tolerance;
};

std::string reproReadme(const Repro &repro, const ReproStory &story);

} // namespace portolan::compare
