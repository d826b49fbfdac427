// canonicalize's canonical-forms step: where the model's opset lets one thing be written several
// ways (an attribute at its default or omitted, a negative or a non-negative axis, an implicit or
// an explicit perm, a no-op bound or none), one form, so later patterns and passes match one
// spelling. The op's version never changes. The patterns are listed in Canonicalize.cpp.
#pragma once

#include "passes/FusionSupport.h"
#include "passes/Pass.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace portolan::passes {

/// What canonicalize's patterns share over its rounds: whether the rewrite budget is spent, and
/// which declines were reported (a node declines a pattern once, however many rounds look at it).
class CanonicalizeRounds {
public:
    explicit CanonicalizeRounds(PassContext &cx) : m_cx(cx) {}

    PassContext &context() { return m_cx; }
    /// Rewriter::begin(), remembering a refusal: the budget is spent for every later pattern too.
    bool begin(const std::string &pattern);
    void decline(ir::NodeId node, const std::string &pattern, const std::string &reason);
    bool budgetSpent() const { return m_budgetSpent; }

private:
    PassContext &m_cx;
    bool m_budgetSpent = false;
    std::set<std::pair<std::uint32_t, std::string>> m_reported;
};

/// Whether `attribute` of an `opType` node in `domain` holds the default the op's ONNX schema
/// declares at the model's opset: such an attribute says nothing its absence does not. False for
/// other domains and for attributes without a declared default. Passes that create ONNX ops use it
/// to write them in canonical form (so a later canonicalize has nothing to change).
bool holdsSchemaDefault(const ir::Model &model, const std::string &opType, const std::string &domain,
                        const onnx::AttributeProto &attribute);

/// Rewrites the live nodes of `graph` into their canonical forms, one rewrite per node and form;
/// returns how many. `shapes` gives the ranks negative axes and implicit perms resolve against.
std::size_t canonicalizeForms(CanonicalizeRounds &rounds, ShapeOracle &shapes, ir::GraphId graph);

} // namespace portolan::passes
