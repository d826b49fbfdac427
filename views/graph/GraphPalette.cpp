#include "views/graph/GraphPalette.h"

namespace portolan::views {

GraphPalette GraphPalette::from(const QPalette &palette)
{
    GraphPalette p;
    p.dark = palette.color(QPalette::Window).lightnessF() < 0.5;
    p.background = p.dark ? QColor(0x1e, 0x20, 0x24) : QColor(0xfa, 0xfa, 0xf8);
    p.frame = p.dark ? QColor(0x5a, 0x60, 0x6a) : QColor(0xb8, 0xbc, 0xc4);
    p.frameHeader = p.dark ? QColor(0x2c, 0x30, 0x36) : QColor(0xec, 0xee, 0xf2);
    p.edge = p.dark ? QColor(0x8a, 0x90, 0x9a) : QColor(0x70, 0x76, 0x80);
    p.edgeHighlight = QColor(0xe0, 0x6c, 0x00);
    p.text = p.dark ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x1a, 0x1a, 0x1a);
    p.mutedText = p.dark ? QColor(0xb0, 0xb4, 0xba) : QColor(0x55, 0x5a, 0x62);
    p.selection = QColor(0x1a, 0x73, 0xe8);
    p.searchHit = QColor(0xf9, 0xc5, 0x13);
    p.created = QColor(0x1e, 0x9e, 0x4a);
    p.removed = QColor(0xd0, 0x30, 0x30);
    p.unsupported = p.dark ? QColor(0xff, 0x5c, 0xc8) : QColor(0xc0, 0x10, 0x90); // magenta: apart from heat's green→red
    return p;
}

QColor GraphPalette::fill(layout::OpCategory category) const
{
    using C = layout::OpCategory;
    QColor light;
    switch (category) {
    case C::Layer: light = QColor(0x9e, 0xc5, 0xf0); break;
    case C::Activation: light = QColor(0xf6, 0xb2, 0xa8); break;
    case C::Normalization: light = QColor(0xb6, 0xe0, 0xb0); break;
    case C::Pooling: light = QColor(0x9e, 0xdc, 0xd6); break;
    case C::Elementwise: light = QColor(0xdd, 0xdd, 0xe4); break;
    case C::Shape: light = QColor(0xf2, 0xe0, 0xa8); break;
    case C::Quantization: light = QColor(0xd8, 0xb8, 0xec); break;
    case C::ControlFlow: light = QColor(0xf0, 0xa8, 0xd8); break;
    case C::Constant: light = QColor(0xe8, 0xe8, 0xe0); break;
    case C::Custom: light = QColor(0xff, 0x9c, 0x5c); break;
    }
    return dark ? light.darker(260) : light;
}

QColor GraphPalette::groupFill() const { return dark ? QColor(0x3a, 0x3f, 0x48) : QColor(0xe2, 0xe6, 0xee); }

QColor GraphPalette::terminalFill() const { return dark ? QColor(0x2e, 0x4a, 0x3a) : QColor(0xd4, 0xf0, 0xdc); }

} // namespace portolan::views
