// Colours of the canvas: one fill per op category, chosen for contrast with dark text in the light
// theme and light text in the dark one; frames and edges from the widget palette.
#pragma once

#include "layout/OpCategory.h"

#include <QColor>
#include <QPalette>

namespace portolan::views {

struct GraphPalette {
    bool dark = false;
    QColor background, frame, frameHeader, edge, edgeHighlight, text, mutedText, selection, searchHit, created, removed, unsupported;

    static GraphPalette from(const QPalette &palette);
    QColor fill(layout::OpCategory category) const;
    QColor groupFill() const;
    QColor terminalFill() const;
};

} // namespace portolan::views
