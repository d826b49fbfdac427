// Renderings of a ShapeAnalysis: text for people (each source of dynamic dims, what it reaches, what
// to do), JSON for scripts (schema in docs/shapes-json.md).
#pragma once

#include "diagnose/DynamicShapes.h"

#include <string>

namespace portolan::diagnose {

inline constexpr int kShapesJsonSchemaVersion = 1;

/// `allValues`: list every value whose shape is open, not only the first ones.
std::string shapesText(const ShapeAnalysis &analysis, bool allValues = false);
std::string shapesJson(const ShapeAnalysis &analysis);

} // namespace portolan::diagnose
