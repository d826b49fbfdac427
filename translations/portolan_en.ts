<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>Inspector</name>
    <message numerus="yes">
        <location filename="../views/inspector/InspectorHtml.cpp" line="178"/>
        <source>%n consumer(s)</source>
        <translation>
            <numerusform>%n consumer</numerusform>
            <numerusform>%n consumers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>portolan::views::ComparePanel</name>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanel.cpp" line="328"/>
        <source>Wrote a repro around %1 (%n node(s)) to %2: B is %3 the reference there.</source>
        <translation>
            <numerusform>Wrote a repro around %1 (%n node) to %2: B is %3 the reference there.</numerusform>
            <numerusform>Wrote a repro around %1 (%n nodes) to %2: B is %3 the reference there.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanel.cpp" line="575"/>
        <source>
On %1: kernels %2 ms; %n node(s) on the CPU, %3 ms.</source>
        <translation>
            <numerusform>
On %1: kernels %2 ms; %n node on the CPU, %3 ms.</numerusform>
            <numerusform>
On %1: kernels %2 ms; %n nodes on the CPU, %3 ms.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanel.cpp" line="621"/>
        <source>
%n imported tensor(s) named as no value of the model: %1</source>
        <translation>
            <numerusform>
%n imported tensor named as no value of the model: %1</numerusform>
            <numerusform>
%n imported tensors named as no value of the model: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>portolan::views::FindingsPanel</name>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="235"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="257"/>
        <source>Dynamic dims (%n origin(s))</source>
        <translation>
            <numerusform>Dynamic dims (%n origin)</numerusform>
            <numerusform>Dynamic dims (%n origins)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="262"/>
        <source>reaches %n value(s)</source>
        <translation>
            <numerusform>reaches %n value</numerusform>
            <numerusform>reaches %n values</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>portolan::views::GraphCanvas</name>
    <message numerus="yes">
        <location filename="../views/graph/GraphCanvas.cpp" line="759"/>
        <source>%1: %n node(s) it cannot run, framed dashed</source>
        <translation>
            <numerusform>%1: %n node it cannot run, framed dashed</numerusform>
            <numerusform>%1: %n nodes it cannot run, framed dashed</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>portolan::views::PipelinePanel</name>
    <message numerus="yes">
        <location filename="../views/pipeline/PipelinePanel.cpp" line="214"/>
        <source>Running %n pass(es)…</source>
        <translation>
            <numerusform>Running %n pass…</numerusform>
            <numerusform>Running %n passes…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/pipeline/PipelinePanel.cpp" line="325"/>
        <source>%n node(s) → %1</source>
        <translation>
            <numerusform>%n node → %1</numerusform>
            <numerusform>%n nodes → %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>portolan::views::ScopeTreeModel</name>
    <message numerus="yes">
        <location filename="../views/common/ScopeTreeModel.cpp" line="90"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
</context>
</TS>
