// `portolan shapes`: where every dim that is not fixed at compile time comes from — a symbolic or
// unknown graph-input dim, or an op whose output size depends on data — which values and nodes it
// reaches, which of those a target needs static, and what to do about it (freeze, a min/opt/max
// profile, bucketing, a fallback partition).
#pragma once

#include "diagnose/TargetProfile.h"
#include "ir/Model.h"
#include "support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::diagnose {

enum class DimSourceKind {
    InputDim,      ///< a symbolic or unknown dim of a graph input
    DataDependent, ///< an op whose output size is known only from tensor values at run time
    Uninferred,    ///< an op whose output ONNX shape inference could not type
};

/// "input-dim", "data-dependent", "uninferred".
const char *dimSourceKindKey(DimSourceKind kind);

enum class ShapeAdvice {
    Freeze,     ///< fix the dim to one value (freeze-shapes)
    Profile,    ///< give the target a min/opt/max range for it
    Bucket,     ///< compile a few frozen sizes and pad inputs to the next one
    Fold,       ///< precompute: the size depends on constants only
    Pad,        ///< data-dependent: bound it (a maximum output count), or run it outside the target
    Keep,       ///< the target takes it as it is
};

const char *shapeAdviceKey(ShapeAdvice advice);

/// One origin of dynamic dims.
struct DimSource {
    DimSourceKind kind = DimSourceKind::InputDim;
    std::string input;       ///< InputDim: the graph input
    std::int64_t axis = -1;  ///< InputDim: the axis (-1: the input's rank itself is unknown)
    std::string symbol;      ///< InputDim: the dim's name ("" when it has none)
    std::string node;        ///< DataDependent / Uninferred: the node, as diagnostics name it
    std::string opType;
    std::string reason;      ///< one line: why this size is not known before the run

    std::size_t valuesReached = 0; ///< main-graph values whose shape it leaves open (its own included)
    std::size_t namedValues = 0;   ///< InputDim: those that still carry `symbol` by name
    std::vector<std::string> nodesReached;  ///< nodes reading or writing such a value, in graph order
    std::vector<std::string> staticNodes;   ///< of those, the ones the target needs static shapes for
    std::vector<std::string> outputs;       ///< graph outputs it reaches

    std::vector<ShapeAdvice> advice;        ///< best first
    std::string suggestion;                 ///< the advice in words, with the command where there is one
    std::string pipeline;                   ///< freeze-shapes / fold-constants text, when the advice is one

    /// "input 'x' axis 0 ('batch')", "NonZero 'nz'".
    std::string label() const;
};

/// A main-graph value whose shape is not fully static, in graph order.
struct DynamicValue {
    std::string name;
    std::string shape;    ///< "[batch,?,768]" or "unknown"
    std::string producer; ///< the node, "" for a graph input
    std::string opType;
    std::vector<std::size_t> sources; ///< indexes into ShapeAnalysis::sources
};

struct ShapeOptions {
    /// freeze-shapes' option text ("x:1x3x224x224,mask:1x128"): analyse as if these dims were fixed.
    std::string freeze;
    /// Judge which reached nodes need static shapes on this target, and advise for it.
    std::optional<TargetProfile> target;
};

struct ShapeAnalysis {
    std::string model;
    std::string freeze;             ///< the dims analysed at, as given ("" for the declared ones)
    std::string targetId, targetName;
    DynamicShapes targetShapes = DynamicShapes::Supported;
    std::size_t values = 0;         ///< main-graph tensor values looked at
    std::vector<DimSource> sources; ///< input dims (input order, axis order), then ops in graph order
    std::vector<DynamicValue> dynamicValues;
    /// freeze-shapes text fixing every input dim still open (diagnose/FreezeDims.h: the sizes given,
    /// shared by dim name and sums of names): what to run when the target needs static shapes.
    std::string freezeAll;
    std::vector<std::string> unsized; ///< the dims freezeAll sets to 1 for want of a size ("x axis 2 (height)")
};

/// Analyses the main graph of `model`. Fails only on a bad `options.freeze`.
support::Expected<ShapeAnalysis> analyzeShapes(const ir::Model &model, const ShapeOptions &options = {});

} // namespace portolan::diagnose
