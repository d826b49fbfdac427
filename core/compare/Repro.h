// A standalone repro: the subgraph around one node cut out as its own model, fed with the tensors
// run B actually gave it, with the reference interpreter's outputs on them, in ONNX backend-test
// layout (model.onnx, test_data_set_0/input_K.pb, output_K.pb) and a README saying what fails and
// how to run it — something to hand to a vendor, or to run in `portolan conform` or onnxruntime.
// When B can run a model of its own (RunSide::runModel), the repro is judged by running B on it
// alone, and shrunk — bisected from both ends, then node by node, as Polygraphy's `debug reduce`
// does — while that failure still reproduces.
#pragma once

#include "compare/RunComparison.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct ReproRequest {
    ir::NodeId node;          ///< in the model run B runs
    int depth = 0;            ///< producers to include before it (0: the node alone)
    Tolerance tolerance;
    bool shrink = true;       ///< drop nodes while the failure still reproduces
};

struct Repro {
    onnx::ModelProto model;
    runtime::NamedValues inputs;   ///< at the cut, as run B produced them
    runtime::NamedValues expected; ///< the reference interpreter's outputs of the repro on them
    runtime::NamedValues actual;   ///< run B's outputs there: on the repro alone when `standalone`
    std::vector<TensorMetrics> metrics; ///< actual against expected, per output
    std::vector<std::string> nodes;     ///< the nodes cut out, by display name (Constant producers too)
    bool standalone = false;       ///< `actual` is B run on the repro itself, not B's whole-model run
    std::size_t nodesBeforeShrink = 0; ///< the cut as requested (Constant producers not counted)
    std::size_t shrinkChecks = 0;      ///< candidate repros run while shrinking

    /// An output is out of tolerance.
    bool reproduces() const;
};

/// Runs B once on `feeds`, capturing what the cut reads and writes, builds the repro, and shrinks it
/// while it still fails.
support::Expected<Repro> extractRepro(const RunSide &b, const runtime::NamedValues &feeds, const ReproRequest &request);

/// Writes the repro into `dir` (created; an existing non-empty folder needs `force`), with
/// `readme` as README.md.
support::Status writeRepro(const Repro &repro, const std::string &dir, const std::string &readme, bool force);

} // namespace portolan::compare
