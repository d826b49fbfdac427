// A standalone repro: the subgraph around one node cut out as its own model, fed with the tensors
// run B actually gave it, with the reference interpreter's outputs on them, in ONNX backend-test
// layout (model.onnx, test_data_set_0/input_K.pb, output_K.pb) and a README saying what fails and
// how to run it — something to hand to a vendor, or to run in `portolan conform` or onnxruntime.
#pragma once

#include "compare/RunComparison.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct ReproRequest {
    ir::NodeId node;          ///< in the model run B runs
    int depth = 0;            ///< producers to include before it (0: the node alone)
    Tolerance tolerance;
};

struct Repro {
    onnx::ModelProto model;
    runtime::NamedValues inputs;   ///< at the cut, as run B produced them
    runtime::NamedValues expected; ///< the reference interpreter's outputs of the repro on them
    runtime::NamedValues actual;   ///< what run B produced there
    std::vector<TensorMetrics> metrics; ///< actual against expected, per output
    std::vector<std::string> nodes;     ///< the nodes cut out, by display name
};

/// Runs B once on `feeds`, capturing what the cut reads and writes, and builds the repro.
support::Expected<Repro> extractRepro(const RunSide &b, const runtime::NamedValues &feeds, const ReproRequest &request);

/// Writes the repro into `dir` (created; an existing non-empty folder needs `force`), with
/// `readme` as README.md.
support::Status writeRepro(const Repro &repro, const std::string &dir, const std::string &readme, bool force);

} // namespace portolan::compare
