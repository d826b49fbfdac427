#include "diagnose/ShapesFormat.h"
#include "diagnose/FreezeDims.h"

#include "diagnose/TargetCheck.h"
#include "support/JsonWriter.h"

#include <algorithm>

namespace portolan::diagnose {

namespace {

constexpr std::size_t kNodesShown = 4;
constexpr std::size_t kValuesShown = 20;

std::string nameList(const std::vector<std::string> &names, std::size_t shown)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i)
        out += (i ? ", " : "") + names[i];
    if (names.size() > shown)
        out += " and " + std::to_string(names.size() - shown) + " more";
    return out;
}

std::string sourceNumbers(const std::vector<std::size_t> &sources)
{
    std::string out;
    for (const std::size_t s : sources)
        out += (out.empty() ? "#" : ", #") + std::to_string(s + 1);
    return out;
}

std::string padded(const std::string &text, std::size_t width)
{
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

void writeStrings(support::JsonWriter &w, std::string_view key, const std::vector<std::string> &items)
{
    w.key(key).beginArray();
    for (const std::string &s : items)
        w.value(s);
    w.endArray();
}

} // namespace

std::string shapesText(const ShapeAnalysis &a, bool allValues)
{
    std::string out = (a.model.empty() ? std::string("model") : a.model) + ": " +
                      counted(a.sources.size(), "source") + " of dynamic dims; " + std::to_string(a.dynamicValues.size()) +
                      " of " + std::to_string(a.values) + " values have shapes not fixed before the run";
    if (!a.freeze.empty())
        out += " (inputs frozen at " + a.freeze + ")";
    out += "\n";
    if (!a.targetId.empty())
        out += "target: " + a.targetName + " (" + a.targetId + "), dynamic shapes " + dynamicShapesName(a.targetShapes) +
               "\n";
    for (std::size_t i = 0; i < a.sources.size(); ++i) {
        const DimSource &s = a.sources[i];
        out += "\n#" + std::to_string(i + 1) + " " + s.label() + " — " + s.reason + "\n";
        out += "     reaches " + counted(s.valuesReached, "value");
        if (s.kind == DimSourceKind::InputDim && !s.symbol.empty())
            out += " (" + std::to_string(s.namedValues) + " still name it '" + s.symbol + "')";
        out += " and " + counted(s.nodesReached.size(), "node");
        if (!s.nodesReached.empty())
            out += ": " + nameList(s.nodesReached, kNodesShown);
        out += "\n";
        if (!s.outputs.empty())
            out += "     graph outputs: " + nameList(s.outputs, kNodesShown) + "\n";
        if (s.staticNodes.size() == s.nodesReached.size() && !s.staticNodes.empty())
            out += "     " + a.targetName + " needs static shapes at every one of them\n";
        else if (!s.staticNodes.empty())
            out += "     " + a.targetName + " needs static shapes at " + counted(s.staticNodes.size(), "node") + ": " +
                   nameList(s.staticNodes, kNodesShown) + "\n";
        out += "  →  " + s.suggestion + "\n";
    }
    if (!a.dynamicValues.empty()) {
        const std::size_t shown = allValues ? a.dynamicValues.size() : std::min(kValuesShown, a.dynamicValues.size());
        out += "\nValues whose shape is open";
        if (shown < a.dynamicValues.size())
            out += " (first " + std::to_string(shown) + " of " + std::to_string(a.dynamicValues.size()) +
                   "; --all lists every one)";
        out += ":\n";
        std::size_t nameWidth = 0, shapeWidth = 0;
        for (std::size_t i = 0; i < shown; ++i) {
            nameWidth = std::max(nameWidth, a.dynamicValues[i].name.size());
            shapeWidth = std::max(shapeWidth, a.dynamicValues[i].shape.size());
        }
        for (std::size_t i = 0; i < shown; ++i) {
            const DynamicValue &v = a.dynamicValues[i];
            out += "  " + padded(v.name, nameWidth) + "  " + padded(v.shape, shapeWidth) + "  from " +
                   (v.sources.empty() ? std::string("-") : sourceNumbers(v.sources)) + "  " +
                   (v.producer.empty() ? std::string("(graph input)") : "(" + v.opType + " '" + v.producer + "')") +
                   "\n";
        }
    }
    const bool needsStatic = std::any_of(a.sources.begin(), a.sources.end(),
                                         [](const DimSource &s) { return !s.staticNodes.empty(); });
    if (needsStatic && !a.freezeAll.empty())
        out += "\nNext: portolan optimize " + (a.model.empty() ? std::string("MODEL") : a.model) +
               " --pipeline 'freeze-shapes{input=" + a.freezeAll + "},fold-constants' -o OUT.onnx\n";
    if (needsStatic && !a.unsized.empty()) {
        FrozenInputs open{a.freezeAll, a.unsized};
        out += "      (" + unsizedNote(open) + ": no size was given for them; give the sizes you run at with -i NAME=DIMS "
               "or --inputs DIR)\n";
    }
    return out;
}

std::string shapesJson(const ShapeAnalysis &a)
{
    support::JsonWriter w;
    w.beginObject();
    w.field("schemaVersion", kShapesJsonSchemaVersion);
    w.field("model", a.model);
    w.field("freeze", a.freeze);
    if (a.targetId.empty())
        w.key("target").null();
    else {
        w.key("target").beginObject();
        w.field("id", a.targetId);
        w.field("name", a.targetName);
        w.field("dynamicShapes", dynamicShapesName(a.targetShapes));
        w.endObject();
    }
    w.field("values", static_cast<std::uint64_t>(a.values));
    w.field("freezeAll", a.freezeAll);
    w.key("unsized").beginArray();
    for (const std::string &dim : a.unsized)
        w.value(dim);
    w.endArray();
    w.key("sources").beginArray();
    for (const DimSource &s : a.sources) {
        w.beginObject();
        w.field("kind", dimSourceKindKey(s.kind));
        w.field("label", s.label());
        w.field("input", s.input);
        w.field("axis", s.axis);
        w.field("symbol", s.symbol);
        w.field("node", s.node);
        w.field("opType", s.opType);
        w.field("reason", s.reason);
        w.field("valuesReached", static_cast<std::uint64_t>(s.valuesReached));
        w.field("namedValues", static_cast<std::uint64_t>(s.namedValues));
        writeStrings(w, "nodesReached", s.nodesReached);
        writeStrings(w, "staticNodes", s.staticNodes);
        writeStrings(w, "outputs", s.outputs);
        w.key("advice").beginArray();
        for (const ShapeAdvice advice : s.advice)
            w.value(shapeAdviceKey(advice));
        w.endArray();
        w.field("suggestion", s.suggestion);
        w.field("pipeline", s.pipeline);
        w.endObject();
    }
    w.endArray();
    w.key("dynamicValues").beginArray();
    for (const DynamicValue &v : a.dynamicValues) {
        w.beginObject();
        w.field("name", v.name);
        w.field("shape", v.shape);
        w.field("producer", v.producer);
        w.field("opType", v.opType);
        w.key("sources").beginArray();
        for (const std::size_t s : v.sources)
            w.value(static_cast<std::uint64_t>(s));
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.str() + "\n";
}

} // namespace portolan::diagnose
