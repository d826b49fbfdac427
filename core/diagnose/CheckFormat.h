// Renderings of a TargetCheck: text for people (what fails, why, what to do next), JSON for
// scripts (schema in docs/check-json.md).
#pragma once

#include "diagnose/TargetCheck.h"

#include <string>

namespace portolan::diagnose {

inline constexpr int kCheckJsonSchemaVersion = 1;

std::string checkText(const TargetCheck &check);
std::string checkJson(const TargetCheck &check);

} // namespace portolan::diagnose
