<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>portolan::gui::MainWindow</name>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="39"/>
        <source>Portolan</source>
        <translation>Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="51"/>
        <source>Open an ONNX model (File → Open…) to see its summary.</source>
        <translation>Öffnen Sie ein ONNX-Modell (Datei → Öffnen…), um seine Zusammenfassung zu sehen.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="58"/>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="59"/>
        <source>&amp;Open…</source>
        <translation>Ö&amp;ffnen…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="60"/>
        <source>Open &amp;Sample Model</source>
        <translation>&amp;Beispielmodell öffnen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="62"/>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="63"/>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="64"/>
        <source>&amp;About Portolan</source>
        <translation>Ü&amp;ber Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="66"/>
        <location filename="../app/gui/MainWindow.cpp" line="127"/>
        <source>No model</source>
        <translation>Kein Modell</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="75"/>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="111"/>
        <source>Sample model</source>
        <translation>Beispielmodell</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="111"/>
        <source>The bundled sample model is missing from this build.</source>
        <translation>Das mitgelieferte Beispielmodell fehlt in diesem Build.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="128"/>
        <source>Cannot open %1</source>
        <translation>%1 kann nicht geöffnet werden</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="138"/>
        <source>%1 — %2 nodes, %3 initializers (%4), %5 findings</source>
        <translation>%1 — %2 Knoten, %3 Initialisierer (%4), %5 Befunde</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="144"/>
        <source>%1 — Portolan</source>
        <translation>%1 — Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="150"/>
        <source>Open ONNX Model</source>
        <translation>ONNX-Modell öffnen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="150"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="157"/>
        <source>About Portolan</source>
        <translation>Über Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="158"/>
        <source>&lt;h3&gt;Portolan %1&lt;/h3&gt;&lt;p&gt;A workbench for porting ONNX models to accelerators.&lt;/p&gt;&lt;p&gt;Qt %2, ONNX 1.12.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Portolan %1&lt;/h3&gt;&lt;p&gt;Eine Werkbank zum Portieren von ONNX-Modellen auf Beschleuniger.&lt;/p&gt;&lt;p&gt;Qt %2, ONNX 1.12.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>portolan::views::ScopeTreeModel</name>
    <message numerus="yes">
        <location filename="../views/common/ScopeTreeModel.cpp" line="90"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n Knoten</numerusform>
            <numerusform>%n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/common/ScopeTreeModel.cpp" line="102"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../views/common/ScopeTreeModel.cpp" line="102"/>
        <source>Operator / size</source>
        <translation>Operator / Größe</translation>
    </message>
</context>
</TS>
