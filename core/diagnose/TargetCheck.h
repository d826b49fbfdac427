// `portolan check`: every node of a model judged against a target profile, the reasons grouped by
// cause, and for each unsupported op the fixes in order of preference — each pass fix tried on a
// copy of the model and re-checked, so "fixes 12 of 12 nodes" is measured, not hoped.
#pragma once

#include "diagnose/TargetProfile.h"
#include "ir/Model.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::diagnose {

/// Why a node cannot run on the target.
enum class Cause {
    MissingOp,        ///< the target lists no such op (or no op of its domain)
    OpsetTooOld,      ///< the op is supported only at newer opsets than the model's
    OpsetTooNew,      ///< … only at older ones
    ElementType,      ///< a tensor's element type the op (or the target) does not take
    AttributeValue,   ///< an attribute value outside what the target implements
    NonConstantInput, ///< an input the target needs as a constant is computed at run time
    DynamicShape,     ///< a dim not known at compile time where the target needs it static
    Rank,             ///< a tensor of higher rank than the target handles
};

/// Stable kebab-case key: "missing-op", "opset-too-old", …
const char *causeKey(Cause cause);
/// Heading for people: "Op not supported", …
const char *causeTitle(Cause cause);

struct NodeProblem {
    ir::NodeId node;
    std::string graph;    ///< "main" or the subgraph's name
    std::string nodeName; ///< as diagnostics name it
    std::string opType;   ///< "domain:OpType" outside ai.onnx
    std::string detail;   ///< the exact reason: "mode 'cubic' is not one of nearest, linear"
    std::string value;    ///< the tensor at fault, when one is
};

enum class FixKind {
    ConvertOpset,  ///< move the model to an opset where the op is supported
    Decompose,     ///< rewrite the op into primitives the target has
    FoldConstants, ///< make a computed input constant
    FreezeShapes,  ///< fix the symbolic input dims
    LowerPrecision,///< store tensors in a type the target takes
    Fallback,      ///< run the nodes outside the target (host partition)
    Plugin,        ///< write a custom op / plugin: the last resort
    Combined,      ///< several of the pass fixes above in one pipeline
};

const char *fixKey(FixKind kind);

/// "1 node", "3 nodes": `count` and `noun`, with an s unless the count is one.
std::string counted(std::size_t count, const std::string &noun);

struct Fix {
    FixKind kind = FixKind::Plugin;
    std::string pipeline; ///< pass text to run (`portolan optimize -p`); empty for fallback and plugin
    std::string summary;  ///< one line saying what it does and what it costs
    /// For pipeline fixes, measured on a copy of the model: whether it ran, how many of this
    /// group's nodes it makes supported, and how many unsupported nodes the result has in all.
    bool tried = false;
    std::string failure; ///< why the pipeline did not run, when it did not
    std::size_t fixedNodes = 0;
    std::size_t unsupportedAfter = 0;
    std::vector<std::string> createdOps; ///< op types the fix introduced

    /// The pipeline was tried and ran through (its counts are measured).
    bool ran() const { return tried && failure.empty(); }
};

/// The nodes of one op type that fail for one cause; or, for a rule of the target's rather than
/// of an op's (static shapes), the nodes of every op type, with `opType` empty.
struct ProblemGroup {
    Cause cause = Cause::MissingOp;
    std::string domain, opType;
    std::vector<NodeProblem> nodes;
    std::string note; ///< the profile's caveat for this op
    std::vector<Fix> fixes; ///< best first; always ends with fallback and plugin
};

/// How the model would split if every unsupported node ran outside the target.
struct Partitioning {
    std::size_t targetPartitions = 0;   ///< connected runs of supported nodes
    std::size_t fallbackPartitions = 0; ///< connected runs of unsupported ones
    std::size_t crossingTensors = 0;    ///< tensors passed between the two each run
    std::uint64_t crossingBytes = 0;    ///< their size, where shapes are static
    std::size_t crossingUnsized = 0;    ///< crossing tensors whose size is not static
};

struct CheckOptions {
    bool tryFixes = true; ///< run each pass fix on a copy and re-check (costs a pipeline per fix)
    /// The sizes the model runs with, by input: freeze fixes take them (diagnose/FreezeDims.h).
    std::map<std::string, std::vector<std::int64_t>> inputSizes;
};

struct TargetCheck {
    std::string model;
    std::string targetId, targetName;
    ProfileSource source;
    DynamicShapes dynamicShapes = DynamicShapes::Supported;
    std::size_t nodes = 0;            ///< checked, subgraphs included, Constants excluded
    std::size_t unsupportedNodes = 0; ///< nodes with at least one problem
    support::Diagnostics modelFindings; ///< about the model as a whole: imported opsets, domains, shape profiles
    std::vector<ProblemGroup> groups;   ///< by cause, then by node count
    Partitioning partitions;
    /// The best measured pass fix of every group, joined, and what it leaves when run on a copy.
    std::optional<Fix> combined;

    bool supported() const { return unsupportedNodes == 0 && !support::hasErrors(modelFindings); }
};

/// Checks `model` against `profile`. Reads the model only.
TargetCheck checkTarget(const ir::Model &model, const TargetProfile &profile, const CheckOptions &options = {});

struct ProblemScan {
    std::vector<ProblemGroup> groups; ///< by cause, then by node count
    std::size_t nodes = 0;            ///< nodes judged (live, subgraphs included, Constants excluded)
};

/// The problems alone (no fixes, no partitioning): what the fix trials re-check with.
ProblemScan findProblems(const ir::Model &model, const TargetProfile &profile);

} // namespace portolan::diagnose
