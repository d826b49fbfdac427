// An external executor: another runtime driven through a command template, as
// `--b 'external:CMD {model} {inputs} {outputs}'`. Each run writes the feeds into a fresh {inputs}
// folder, both as ONNX test layout (`input_K.pb`, named inside) and as NumPy (`NAME.npy`, the name
// %-escaped), runs the command through /bin/sh with a timeout, and reads whatever it left in
// {outputs} (.pb named inside, .npy by file name) as an imported run: the outputs, and any
// intermediates the runtime dumped there.
#pragma once

#include "compare/ImportedRun.h"

#include <string>

namespace portolan::compare {

struct ExternalCommand {
    std::string text;              ///< the template: {model}, {inputs} and {outputs} are replaced by quoted paths
    double timeoutSeconds = 600;   ///< past it the command's process group is killed
};

/// Checks that `command` names {model}, {inputs} and {outputs}.
support::Status checkExternalCommand(const ExternalCommand &command);

/// Runs `command` on the model file at `modelPath` (of which `model` is the loaded form) with `feeds`.
/// Errors say the exit status or the timeout, with the end of the command's stderr.
support::Expected<ImportedRun> runExternal(const ExternalCommand &command, const std::string &modelPath, const ir::Model &model,
                                           const runtime::NamedValues &feeds);

/// A run side over the external command. runModel writes the other model (a repro) to a temporary
/// file and runs the command on it, so repros are judged and shrunk on the external runtime too.
RunSide externalSide(const ir::Model &model, const std::string &modelPath, const ExternalCommand &command);

} // namespace portolan::compare
