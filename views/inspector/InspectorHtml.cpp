// Inspector pages. Everything from the model is escaped: names and doc strings are user data.
#include "views/inspector/InspectorHtml.h"

#include "analysis/OpSchemas.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"

#include <QCoreApplication>

#include <map>

namespace portolan::views {

namespace {

// The pages' strings, in one translation context.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(Inspector)
};

QString esc(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString valueLink(const ir::Model &model, ir::ValueId v)
{
    const ir::Value &value = model.value(v);
    return QStringLiteral("<a href=\"value:%1\">%2</a>").arg(v.index).arg(esc(value.name.empty() ? "(unnamed)" : value.name));
}

QString nodeLink(const ir::Model &model, ir::NodeId n)
{
    const ir::Node &node = model.node(n);
    const std::string name = node.name.empty() ? "#" + std::to_string(n.index) : node.name;
    return QStringLiteral("<a href=\"node:%1\">%2</a> <span style=\"color:gray\">%3</span>")
        .arg(n.index)
        .arg(esc(name))
        .arg(esc(node.opType));
}

QString typeHtml(const ir::Value &value)
{
    if (!value.info.has_type())
        return QStringLiteral("<i>%1</i>").arg(Text::tr("type unknown"));
    const int elem = ir::tensorElementType(value.type());
    if (elem == 0)
        return esc(ir::typeString(value.type()));
    return esc(ir::dataTypeName(elem)) + QLatin1Char(' ') + shapeHtml(value.shape());
}

QString attributeValue(const ir::Attribute &attribute)
{
    const auto &a = attribute.proto;
    auto list = [](const auto &items, auto fmt) {
        QStringList parts;
        int shown = 0;
        for (const auto &item : items) {
            if (++shown > 64) {
                parts << QStringLiteral("…");
                break;
            }
            parts << fmt(item);
        }
        return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
    };
    switch (a.type()) {
    case onnx::AttributeProto::INT: return QString::number(a.i());
    case onnx::AttributeProto::FLOAT: return QString::number(a.f(), 'g', 7);
    case onnx::AttributeProto::STRING: return esc(a.s());
    case onnx::AttributeProto::INTS: return list(a.ints(), [](auto v) { return QString::number(v); });
    case onnx::AttributeProto::FLOATS: return list(a.floats(), [](auto v) { return QString::number(v, 'g', 7); });
    case onnx::AttributeProto::STRINGS: return list(a.strings(), [](const auto &v) { return esc(v); });
    case onnx::AttributeProto::TENSOR:
        return QStringLiteral("tensor %1 [%2]")
            .arg(esc(ir::dataTypeName(a.t().data_type())))
            .arg(list(a.t().dims(), [](auto v) { return QString::number(v); }));
    case onnx::AttributeProto::GRAPH:
    case onnx::AttributeProto::GRAPHS: return Text::tr("subgraph (%1)").arg(attribute.subgraphs.size());
    default: return Text::tr("(type %1)").arg(a.type());
    }
}

QString section(const QString &title) { return QStringLiteral("<h4 style=\"margin-bottom:2px\">%1</h4>").arg(title); }

QString valuesPreview(const runtime::Tensor &tensor, std::int64_t count)
{
    QStringList parts; // element by element: a big weight is not copied to show its first values
    const std::int64_t shown = std::min(count, tensor.size());
    for (std::int64_t i = 0; i < shown; ++i)
        parts << QString::number(runtime::elementAsDouble(tensor, i), 'g', 6);
    if (tensor.size() > shown)
        parts << QStringLiteral("…");
    return parts.join(QStringLiteral(", "));
}

// ONNX's operator docs are Markdown-ish: paragraphs are separated by blank lines, lines inside a
// paragraph are wrapped at 80 columns, code is fenced by ``` or indented. Paragraphs reflow here;
// code keeps its lines.
QString docHtml(const std::string &doc)
{
    QString html;
    QStringList paragraph;
    bool code = false;
    auto flush = [&] {
        if (!paragraph.isEmpty())
            html += QStringLiteral("<p>%1</p>").arg(paragraph.join(QLatin1Char(' ')));
        paragraph.clear();
    };
    for (const QString &line : QString::fromStdString(doc).split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("```"))) {
            flush();
            html += code ? QStringLiteral("</pre>") : QStringLiteral("<pre>");
            code = !code;
        } else if (code) {
            html += line.toHtmlEscaped() + QLatin1Char('\n');
        } else if (line.trimmed().isEmpty()) {
            flush();
        } else {
            paragraph << line.trimmed().toHtmlEscaped();
        }
    }
    flush();
    if (code)
        html += QStringLiteral("</pre>");
    return html;
}

} // namespace

QString shapeHtml(const ir::Shape &shape)
{
    if (!shape.dims)
        return QStringLiteral("<span style=\"color:#c0392b\">[%1]</span>").arg(Text::tr("rank unknown"));
    QStringList dims;
    for (const auto &d : *shape.dims)
        dims << (d.isStatic() ? QString::number(d.extent())
                              : QStringLiteral("<b style=\"color:#c05800\">%1</b>").arg(esc(d.str())));
    return QStringLiteral("[") + dims.join(QStringLiteral(",")) + QStringLiteral("]");
}

QString nodePageHtml(const ir::Model &model, ir::NodeId id)
{
    const ir::Node &node = model.node(id);
    const std::string domain = node.domain.empty() ? "ai.onnx" : node.domain;
    const int opset = model.opsetVersion(node.domain).value_or(0);
    const auto doc = analysis::opDoc(node.opType, node.domain, opset);
    QString html = QStringLiteral("<h3 style=\"margin-bottom:0\">%1</h3>").arg(esc(node.opType));
    html += QStringLiteral("<div>%1</div>").arg(esc(node.name));
    html += QStringLiteral("<div style=\"color:gray\">%1 · opset %2 · %3</div>")
                .arg(esc(domain))
                .arg(opset)
                .arg(doc ? Text::tr("schema since version %1").arg(doc->sinceVersion) : Text::tr("no schema known"));

    if (!node.attributes.empty()) {
        html += section(Text::tr("Attributes")) + QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
        for (const auto &a : node.attributes)
            html += QStringLiteral("<tr><td><tt>%1</tt></td><td>%2</td></tr>").arg(esc(a.name()), attributeValue(a));
        html += QStringLiteral("</table>");
    }
    auto ports = [&](const std::vector<ir::ValueId> &values, bool inputs) {
        QString rows;
        for (std::size_t i = 0; i < values.size(); ++i) {
            QString param;
            if (doc) {
                const auto &params = inputs ? doc->inputs : doc->outputs;
                if (!params.empty())
                    param = esc(params[std::min(i, params.size() - 1)].name);
            }
            if (!values[i].valid()) {
                rows += QStringLiteral("<tr><td>%1</td><td colspan=\"2\"><i>%2</i></td></tr>").arg(param, Text::tr("omitted"));
                continue;
            }
            const ir::Value &v = model.value(values[i]);
            QString where;
            if (inputs)
                where = v.isInitializer()        ? Text::tr("initializer")
                        : v.producer.valid()     ? Text::tr("from %1").arg(nodeLink(model, v.producer))
                                                 : Text::tr("graph input");
            else
                where = Text::tr("%n consumer(s)", nullptr, static_cast<int>(v.uses.size()));
            rows += QStringLiteral("<tr><td>%1</td><td>%2<br>%3</td><td>%4</td></tr>")
                        .arg(param, valueLink(model, values[i]), typeHtml(v), where);
        }
        return rows;
    };
    html += section(Text::tr("Inputs")) + QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">") +
            ports(node.inputs, true) + QStringLiteral("</table>");
    html += section(Text::tr("Outputs")) + QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">") +
            ports(node.outputs, false) + QStringLiteral("</table>");
    if (!node.extras.doc_string().empty())
        html += section(Text::tr("Node documentation")) + QStringLiteral("<p>%1</p>").arg(esc(node.extras.doc_string()));
    if (doc && !doc->doc.empty())
        html += section(Text::tr("Operator documentation")) + docHtml(doc->doc);
    return html;
}

namespace {

/// Elements, min/max/mean/std and NaN/Inf of a numeric tensor, and its first values.
QString tensorStatsHtml(const runtime::Tensor &tensor)
{
    const auto stats = runtime::tensorStats(tensor);
    if (!stats.numeric)
        return {};
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    auto row = [&](const QString &k, const QString &val) { html += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(k, val); };
    row(Text::tr("elements"), QString::number(stats.count));
    row(Text::tr("min"), QString::number(stats.min, 'g', 7));
    row(Text::tr("max"), QString::number(stats.max, 'g', 7));
    row(Text::tr("mean"), QString::number(stats.mean, 'g', 7));
    row(Text::tr("std"), QString::number(stats.stddev, 'g', 7));
    row(Text::tr("NaN / Inf"), QStringLiteral("%1 / %2").arg(stats.nans).arg(stats.infs));
    html += QStringLiteral("</table>");
    return html + QStringLiteral("<p><tt>%1</tt></p>").arg(valuesPreview(tensor, 32));
}

} // namespace

QString valuePageHtml(const ir::Model &model, ir::ValueId id, const runtime::Tensor *computed)
{
    const ir::Value &v = model.value(id);
    QString html = QStringLiteral("<h3 style=\"margin-bottom:0\">%1</h3>").arg(esc(v.name));
    html += QStringLiteral("<div>%1</div>").arg(typeHtml(v));
    html += section(Text::tr("Producer"));
    html += v.isInitializer()     ? Text::tr("initializer")
            : v.producer.valid() ? nodeLink(model, v.producer)
                                 : Text::tr("graph input");
    html += section(Text::tr("Consumers (%1)").arg(v.uses.size()));
    int shown = 0;
    for (const auto &use : v.uses) {
        if (++shown > 50) {
            html += Text::tr("… and %1 more").arg(v.uses.size() - 50);
            break;
        }
        html += nodeLink(model, use.node) + Text::tr(" (input %1)").arg(use.inputIndex) + QStringLiteral("<br>");
    }
    if (v.isInitializer()) {
        html += section(Text::tr("Data"));
        html += Text::tr("%1 bytes%2").arg(v.initializer->byteSize()).arg(v.initializer->isExternal() ? Text::tr(", external") : QString());
        if (auto tensor = runtime::tensorFromInitializer(v.initializer))
            html += tensorStatsHtml(*tensor);
        else
            html += QStringLiteral("<p style=\"color:#c0392b\">%1</p>").arg(esc(tensor.error().format()));
    } else if (computed) {
        html += section(Text::tr("Values"));
        html += Text::tr("From the reference interpreter on the compare dock's inputs: %1").arg(esc(runtime::shapeString(computed->shape())));
        html += tensorStatsHtml(*computed);
    } else {
        html += section(Text::tr("Values"));
        html += QStringLiteral("<a href=\"compute:%1\">%2</a>").arg(id.index).arg(Text::tr("Compute them with the reference interpreter"));
        html += Text::tr(" (on the compare dock's inputs)");
    }
    if (!v.info.doc_string().empty())
        html += section(Text::tr("Documentation")) + QStringLiteral("<p>%1</p>").arg(esc(v.info.doc_string()));
    return html;
}

QString groupPageHtml(const ir::Model &model, const ir::NameScopeTree &tree, std::size_t group)
{
    const auto &g = tree.group(group);
    QString html = QStringLiteral("<h3 style=\"margin-bottom:0\">%1</h3>").arg(esc(tree.pathOf(group).empty() ? "/" : tree.pathOf(group)));
    html += Text::tr("%1 nodes, %2 child groups").arg(g.totalNodes).arg(g.children.size());
    std::map<std::string, int> ops;
    std::vector<std::size_t> stack{group};
    while (!stack.empty()) {
        const auto &cur = tree.group(stack.back());
        stack.pop_back();
        for (auto n : cur.nodes)
            ++ops[model.node(n).opType];
        stack.insert(stack.end(), cur.children.begin(), cur.children.end());
    }
    html += section(Text::tr("Operators")) + QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    for (const auto &[op, count] : ops)
        html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td></tr>").arg(esc(op)).arg(count);
    html += QStringLiteral("</table><p style=\"color:gray\">%1</p>").arg(Text::tr("Double-click the group on the canvas to open or close it."));
    return html;
}

} // namespace portolan::views
