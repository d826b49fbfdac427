// Renderings of a TargetCheck: text for people (what fails, why, what to do next), JSON for
// scripts (schema in docs/check-json.md).
#pragma once

#include "diagnose/TargetCheck.h"

#include <string>

namespace portolan::diagnose {

inline constexpr int kCheckJsonSchemaVersion = 1;

std::string checkText(const TargetCheck &check);
/// A fix in one line: its pipeline (or kind), what it does and, when tried, what it measured.
std::string fixLine(const Fix &fix, std::size_t groupSize);
/// Whether a fix is worth showing people: not one that was tried and fixed nothing here.
bool fixWorthShowing(const Fix &fix);
std::string checkJson(const TargetCheck &check);

} // namespace portolan::diagnose
