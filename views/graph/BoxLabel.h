// The text a box of the canvas carries, and the size it needs in the canvas font: the op type, the
// node's name, its key attributes and its constant inputs (weights sit on the node, not in boxes).
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"
#include "layout/GraphScene.h"

#include <QFont>
#include <QString>
#include <QStringList>

namespace portolan::views {

struct BoxLabel {
    QString title;     ///< "Conv", "encoder (412 nodes)", "input: pixel_values"
    QString subtitle;  ///< the node's name, or the group's op summary
    QStringList lines; ///< "kernel 3×3  stride 2", "W ⟨64×3×7×7⟩"
};

BoxLabel boxLabel(const ir::Model &model, const ir::NameScopeTree &tree, const layout::SceneBox &box);

/// Fonts and metrics the canvas paints with; measuring is thread-safe (used by the layout worker).
struct BoxFonts {
    QFont title;
    QFont body;
    static BoxFonts standard();
    static constexpr double kPadding = 6;
    static constexpr double kMinWidth = 70;
    static constexpr double kMaxWidth = 260;
    layout::Size measure(const BoxLabel &label) const;
};

/// "⟨64×3×7×7⟩" for a shape, "⟨?⟩" when unknown.
QString shapeText(const ir::Shape &shape);

} // namespace portolan::views
