// Box labels: which attributes count as "key" is a short list per op family (what Netron users look
// for first); everything else is in the inspector.
#include "views/graph/BoxLabel.h"

#include "runtime/TensorProtoIO.h"
#include "runtime/Dispatch.h"

#include <QCoreApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <map>

namespace portolan::views {

namespace {

QString intsText(const onnx::AttributeProto &a, const QString &sep = QStringLiteral("×"))
{
    QStringList parts;
    for (auto v : a.ints())
        parts << QString::number(v);
    return parts.join(sep);
}

QString attributeText(const onnx::AttributeProto &a)
{
    switch (a.type()) {
    case onnx::AttributeProto::INT: return QString::number(a.i());
    case onnx::AttributeProto::FLOAT: return QString::number(a.f(), 'g', 4);
    case onnx::AttributeProto::STRING: return QString::fromStdString(a.s());
    case onnx::AttributeProto::INTS: return intsText(a, QStringLiteral(","));
    default: return {};
    }
}

// Attributes shown on the box, by name; the value printed as the label says.
const std::map<std::string, QString> &keyAttributes()
{
    static const std::map<std::string, QString> keys = {
        {"kernel_shape", QStringLiteral("kernel")}, {"strides", QStringLiteral("stride")},
        {"dilations", QStringLiteral("dilation")},  {"group", QStringLiteral("group")},
        {"perm", QStringLiteral("perm")},           {"axis", QStringLiteral("axis")},
        {"axes", QStringLiteral("axes")},           {"epsilon", QStringLiteral("ε")},
        {"mode", QStringLiteral("mode")},           {"to", QStringLiteral("to")},
        {"activation", QStringLiteral("act")},      {"transB", QStringLiteral("transB")},
        {"num_heads", QStringLiteral("heads")},     {"keepdims", QStringLiteral("keepdims")},
    };
    return keys;
}

QString nodeAttributeLine(const ir::Node &node)
{
    QStringList parts;
    for (const auto &attribute : node.attributes) {
        auto key = keyAttributes().find(attribute.name());
        if (key == keyAttributes().end())
            continue;
        QString value = attribute.name() == "kernel_shape" || attribute.name() == "strides" || attribute.name() == "dilations"
                            ? intsText(attribute.proto)
                            : attributeText(attribute.proto);
        if (attribute.name() == "to")
            value = QString::fromStdString(ir::dataTypeName(static_cast<int>(attribute.proto.i())));
        if (!value.isEmpty())
            parts << key->second + QLatin1Char(' ') + value;
    }
    return parts.join(QStringLiteral("  "));
}

// A constant input: its values when it is a short integer list (a Reshape's shape, Slice bounds),
// otherwise its shape.
QString constantText(const ir::Model &model, const ir::Value &v)
{
    const onnx::TensorProto *proto = nullptr;
    if (v.isInitializer() && !v.initializer->isExternal())
        proto = &v.initializer->proto;
    else if (v.producer.valid())
        if (const auto *value = model.node(v.producer).attribute("value"); value && value->proto.has_t())
            proto = &value->proto.t();
    if (!proto)
        return shapeText(v.shape());
    std::int64_t count = 1;
    for (auto d : proto->dims())
        count *= d;
    const bool integer = proto->data_type() == onnx::TensorProto::INT64 || proto->data_type() == onnx::TensorProto::INT32;
    if (integer && count <= 8)
        if (auto tensor = runtime::tensorFromProto(*proto)) {
            const runtime::Tensor values = runtime::kernels::convertTensor(*tensor, onnx::TensorProto::INT64);
            QStringList parts;
            for (std::int64_t k = 0; k < values.size(); ++k)
                parts << QString::number(values.data<std::int64_t>()[k]);
            return proto->dims_size() == 0 ? QStringLiteral("= %1").arg(parts.value(0))
                                           : QStringLiteral("= [%1]").arg(parts.join(QLatin1Char(',')));
        }
    ir::Shape shape;
    shape.dims.emplace();
    for (auto d : proto->dims())
        shape.dims->push_back(ir::Dim{d});
    return shapeText(shape);
}

} // namespace

QString shapeText(const ir::Shape &shape)
{
    if (!shape.dims)
        return QStringLiteral("⟨?⟩");
    if (shape.dims->empty())
        return QStringLiteral("⟨scalar⟩");
    QStringList dims;
    for (const auto &d : *shape.dims)
        dims << QString::fromStdString(d.str());
    return QStringLiteral("⟨") + dims.join(QStringLiteral("×")) + QStringLiteral("⟩");
}

BoxLabel boxLabel(const ir::Model &model, const ir::NameScopeTree &tree, const layout::SceneBox &box)
{
    BoxLabel label;
    switch (box.kind) {
    case layout::BoxKind::Node: {
        const ir::Node &node = model.node(box.node);
        label.title = QString::fromStdString(node.opType);
        label.subtitle = QString::fromStdString(node.name);
        if (QString attributes = nodeAttributeLine(node); !attributes.isEmpty())
            label.lines << attributes;
        // constant inputs on the node: "B ⟨768⟩" with the schema-free position name
        int shown = 0;
        for (std::size_t i = 0; i < node.inputs.size(); ++i) {
            if (!node.inputs[i].valid())
                continue;
            const ir::Value &v = model.value(node.inputs[i]);
            const bool fromConstant = v.producer.valid() && model.node(v.producer).isConstant();
            if (!v.isInitializer() && !fromConstant)
                continue;
            if (++shown > 3) {
                label.lines << QCoreApplication::translate("BoxLabel", "…more constants");
                break;
            }
            label.lines << QStringLiteral("#%1 %2").arg(i).arg(constantText(model, v));
        }
        break;
    }
    case layout::BoxKind::CollapsedGroup:
    case layout::BoxKind::ExpandedGroup: {
        const auto &g = tree.group(box.group);
        label.title = QString::fromStdString(g.name);
        label.subtitle = QCoreApplication::translate("BoxLabel", "%n node(s)", nullptr, static_cast<int>(g.totalNodes));
        break;
    }
    case layout::BoxKind::GraphInput:
    case layout::BoxKind::GraphOutput: {
        const ir::Value &v = model.value(box.value);
        label.title = box.kind == layout::BoxKind::GraphInput ? QCoreApplication::translate("BoxLabel", "input") : QCoreApplication::translate("BoxLabel", "output");
        label.subtitle = QString::fromStdString(v.name);
        label.lines << QString::fromStdString(ir::typeString(v.type()));
        break;
    }
    }
    return label;
}

BoxFonts BoxFonts::standard()
{
    BoxFonts fonts;
    fonts.body.setPointSizeF(8);
    fonts.title = fonts.body;
    fonts.title.setPointSizeF(9);
    fonts.title.setBold(true);
    return fonts;
}

layout::Size BoxFonts::measure(const BoxLabel &label) const
{
    const QFontMetricsF t(title), b(body);
    double width = t.horizontalAdvance(label.title);
    double height = t.height();
    if (!label.subtitle.isEmpty()) {
        width = std::max(width, b.horizontalAdvance(label.subtitle));
        height += b.height();
    }
    for (const auto &line : label.lines) {
        width = std::max(width, b.horizontalAdvance(line));
        height += b.height();
    }
    return {std::clamp(width + 2 * kPadding, kMinWidth, kMaxWidth), height + 2 * kPadding};
}

} // namespace portolan::views
