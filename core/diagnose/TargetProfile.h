// A target support profile: which ops an inference compiler or runtime accepts, at which opsets,
// types, attribute values and shapes — read from resources/targets/*.json (format: docs/targets.md).
#pragma once

#include "support/Expected.h"

#include <climits>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace portolan::diagnose {

/// Both ends inclusive.
struct OpsetRange {
    int min = 1;
    int max = INT_MAX;

    bool contains(int version) const { return version >= min && version <= max; }
    /// "11–17", "13+", "≤ 12".
    std::string str() const;
};

/// What a target accepts of one attribute. Lists are checked element by element.
struct AttributeConstraint {
    std::vector<std::string> in;    ///< allowed values, as valueText() writes them (empty: any)
    std::vector<std::string> notIn; ///< forbidden values
    std::optional<double> min, max;
};

struct InputConstraint {
    std::vector<int> dtypes; ///< ONNX element types (empty: any the op and target allow)
    bool constant = false;   ///< must be an initializer or a Constant's output
};

struct OpSupport {
    std::string domain; ///< "" for ai.onnx
    std::string opType;
    std::optional<OpsetRange> opsets;
    std::vector<int> dtypes; ///< for input 0 (output 0 of an op without inputs); empty: the target's
    std::map<std::size_t, InputConstraint> inputs;
    std::map<std::string, AttributeConstraint> attributes;
    bool staticShapes = false;
    std::optional<int> maxRank;
    std::string note;
};

enum class DynamicShapes { Supported, Profile, Static };

/// "supported", "profile" or "static".
const char *dynamicShapesName(DynamicShapes support);

struct ProfileSource {
    std::string document, version, url;
};

struct TargetProfile {
    std::string id, name, notes;
    std::string path; ///< the file it was read from ("" for text)
    ProfileSource source;
    std::map<std::string, OpsetRange> opsets; ///< per imported domain ("" for ai.onnx)
    std::vector<int> dtypes;                  ///< element types handled at all (empty: any)
    std::optional<int> maxRank;
    DynamicShapes dynamicShapes = DynamicShapes::Supported;
    /// The target expands an op it does not list when ONNX defines the op as a function of others
    /// (ONNX Runtime does): such ops are judged by their function body's ops instead.
    bool expandsFunctions = false;
    std::map<std::pair<std::string, std::string>, OpSupport> ops; ///< by (domain, opType)

    /// The op's entry, or nullptr when the target does not list it.
    const OpSupport *op(const std::string &domain, const std::string &opType) const;
    /// True when the profile says anything of `domain` (an opset range or an op).
    bool knowsDomain(const std::string &domain) const;
};

/// An attribute value (or list element) as profiles write it: integers in decimal, floats in the
/// shortest form that reads back ("0.5"), strings as they are.
std::string attributeValueText(double number);

/// Parses a profile; errors name `origin` and the offending key.
support::Expected<TargetProfile> parseTargetProfile(std::string_view json, const std::string &origin);
/// Reads and parses the profile file at `path`.
support::Expected<TargetProfile> loadTargetProfile(const std::string &path);

/// Where profiles are looked up, first match wins: the folders in $PORTOLAN_TARGETS (`:`-separated),
/// then share/portolan/targets beside the executable, then the source tree's resources/targets.
std::vector<std::string> targetSearchPath();
/// `target` is a profile id (looked up in `searchPath`) or a path to a .json file.
support::Expected<TargetProfile> findTargetProfile(const std::string &target,
                                                   const std::vector<std::string> &searchPath = targetSearchPath());

struct TargetListing {
    std::vector<TargetProfile> profiles; ///< by id; an id found twice: the first in the search path
    std::vector<support::Error> problems; ///< files that did not parse
};
/// Every profile in `searchPath`.
TargetListing listTargetProfiles(const std::vector<std::string> &searchPath = targetSearchPath());

} // namespace portolan::diagnose
