// The inspector's pages as HTML: a node (op, schema version, attributes, inputs/outputs with their
// types and the op's documentation), a tensor (type, producer, consumers; values and statistics for
// an initializer) and a group. Links are "node:ID" and "value:ID" so the panel can navigate.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"

#include <QString>

namespace portolan::views {

QString nodePageHtml(const ir::Model &model, ir::NodeId node);
QString valuePageHtml(const ir::Model &model, ir::ValueId value);
QString groupPageHtml(const ir::Model &model, const ir::NameScopeTree &tree, std::size_t group);

/// "[1,3,<b>batch</b>,224]"-style HTML of a shape: symbolic and unknown dims stand out.
QString shapeHtml(const ir::Shape &shape);

} // namespace portolan::views
