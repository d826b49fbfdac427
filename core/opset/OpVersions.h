// Which version of a standard operator is in force at an opset, from libonnx's registry (opsets up
// to 17) and StandardOpVersions.def (18 to 27): what every schema and kernel lookup must agree on so
// that a node is never judged or run by the rules of another version of its op.
#pragma once

#include <string>
#include <string_view>

namespace portolan::opset {

/// The newest standard-domain opset Portolan knows the operators of (schemas and documentation).
inline constexpr int kHighestStandardOpset = 27;
/// The newest standard-domain opset libonnx 1.12 has schemas, a checker and shape inference for.
inline constexpr int kLibOnnxStandardOpset = 17;
/// The IR versions Portolan reads and runs (IR 3 introduced opset_import; IR 13 is ONNX 1.21's).
inline constexpr int kLowestIrVersion = 3;
inline constexpr int kHighestIrVersion = 13;

/// "", "ai.onnx": the standard operator set.
bool isStandardDomain(std::string_view domain);

/// The since-version of standard op `opType` in force at `opset`; 0 when the op does not exist then.
int standardSinceVersion(const std::string &opType, int opset);

/// The newest version of `opType` after `implemented` and not after `opset` that is new or changed
/// its inputs, attributes or their meaning (element-type additions do not count); 0 when none.
/// A kernel or schema written for version `implemented` must not serve a node when this is non-zero.
int semanticChangeAfter(const std::string &opType, int implemented, int opset);

/// Whether ONNX (up to opset 27) defines a standard op of that name at all.
bool isKnownStandardOp(const std::string &opType);

/// How a message names an op at an opset: "ReduceMean-18 (opset 20)" for a standard op (its version in
/// force), "com.microsoft::Attention (opset 1)" for another domain.
std::string describeOpVersion(std::string_view domain, const std::string &opType, int opset);

} // namespace portolan::opset
