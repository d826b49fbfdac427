// No kernel ignores an attribute. A kernel reads its attributes through KernelContext, which marks
// each one it looks up; an attribute it never looked up is harmless only while it holds its schema
// default. Anything else would be computed as if the attribute were absent: wrong numbers with no
// warning, the failure an oracle must never have.
#pragma once

#include "runtime/KernelContext.h"

#include <optional>
#include <string>

namespace portolan::runtime {

/// "name = value" of the first attribute of the context's node that no lookup read and that differs
/// from its schema default (or has none); nullopt when every attribute was honoured.
std::optional<std::string> ignoredAttribute(const KernelContext &ctx);

/// An error naming the node, the attribute and its value when ignoredAttribute() finds one;
/// `kernel` says whose kernel it is ("the reference kernel").
support::Status checkAttributesHonoured(const KernelContext &ctx, const std::string &kernel);

} // namespace portolan::runtime
