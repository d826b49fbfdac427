// The inspector's pages as HTML: a node (op, schema version, attributes, inputs/outputs with their
// types and the op's documentation), a tensor (type, producer, consumers; values and statistics for
// an initializer, or for a computed tensor once the reference has run) and a group. Links are
// "node:ID" and "value:ID" so the panel can navigate, and "compute:ID" to ask for a tensor's values.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"
#include "runtime/Tensor.h"

#include <QString>

namespace portolan::views {

QString nodePageHtml(const ir::Model &model, ir::NodeId node);
/// `computed`: the tensor's values from a reference run, when there are some (a computed tensor
/// without them gets a link to compute them).
QString valuePageHtml(const ir::Model &model, ir::ValueId value, const runtime::Tensor *computed = nullptr);
QString groupPageHtml(const ir::Model &model, const ir::NameScopeTree &tree, std::size_t group);

/// "[1,3,<b>batch</b>,224]"-style HTML of a shape: symbolic and unknown dims stand out.
QString shapeHtml(const ir::Shape &shape);

} // namespace portolan::views
