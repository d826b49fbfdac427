<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>BoxLabel</name>
    <message>
        <location filename="../views/graph/BoxLabel.cpp" line="136"/>
        <source>…more constants</source>
        <translation>…weitere Konstanten</translation>
    </message>
    <message>
        <location filename="../views/graph/BoxLabel.cpp" line="153"/>
        <source>input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <location filename="../views/graph/BoxLabel.cpp" line="153"/>
        <source>output</source>
        <translation>Ausgabe</translation>
    </message>
</context>
<context>
    <name>Inspector</name>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="42"/>
        <source>type unknown</source>
        <translation>Typ unbekannt</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="76"/>
        <source>subgraph (%1)</source>
        <translation>Teilgraph (%1)</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="77"/>
        <source>(type %1)</source>
        <translation>(Typ %1)</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="131"/>
        <source>rank unknown</source>
        <translation>Rang unbekannt</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="150"/>
        <source>schema since version %1</source>
        <translation>Schema seit Version %1</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="150"/>
        <source>no schema known</source>
        <translation>kein Schema bekannt</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="153"/>
        <source>Attributes</source>
        <translation>Attribute</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="168"/>
        <source>omitted</source>
        <translation>ausgelassen</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="174"/>
        <location filename="../views/inspector/InspectorHtml.cpp" line="223"/>
        <source>initializer</source>
        <translation>Initialisierer</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="175"/>
        <source>from %1</source>
        <translation>von %1</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="176"/>
        <location filename="../views/inspector/InspectorHtml.cpp" line="225"/>
        <source>graph input</source>
        <translation>Grapheingabe</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/inspector/InspectorHtml.cpp" line="178"/>
        <source>%n consumer(s)</source>
        <translation>
            <numerusform>%n Verbraucher</numerusform>
            <numerusform>%n Verbraucher</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="184"/>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="186"/>
        <source>Outputs</source>
        <translation>Ausgaben</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="189"/>
        <source>Node documentation</source>
        <translation>Knotendokumentation</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="191"/>
        <source>Operator documentation</source>
        <translation>Operatordokumentation</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="222"/>
        <source>Producer</source>
        <translation>Erzeuger</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="226"/>
        <source>Consumers (%1)</source>
        <translation>Verbraucher (%1)</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="230"/>
        <source>… and %1 more</source>
        <translation>… und %1 weitere</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="233"/>
        <source> (input %1)</source>
        <translation> (Eingabe %1)</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="236"/>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="237"/>
        <source>%1 bytes%2</source>
        <translation>%1 Bytes%2</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="237"/>
        <source>, external</source>
        <translation>, extern</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="205"/>
        <source>elements</source>
        <translation>Elemente</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="206"/>
        <source>min</source>
        <translation>Min</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="207"/>
        <source>max</source>
        <translation>Max</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="208"/>
        <source>mean</source>
        <translation>Mittelwert</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="209"/>
        <source>std</source>
        <translation>Std.-Abw.</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="210"/>
        <source>NaN / Inf</source>
        <translation>NaN / Inf</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="243"/>
        <location filename="../views/inspector/InspectorHtml.cpp" line="247"/>
        <source>Values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="244"/>
        <source>From the reference interpreter on the compare dock&apos;s inputs: %1</source>
        <translation>Vom Referenzinterpreter mit den Eingaben des Vergleichs-Docks: %1</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="248"/>
        <source>Compute them with the reference interpreter</source>
        <translation>Mit dem Referenzinterpreter berechnen</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="249"/>
        <source> (on the compare dock&apos;s inputs)</source>
        <translation> (mit den Eingaben des Vergleichs-Docks)</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="252"/>
        <source>Documentation</source>
        <translation>Dokumentation</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="260"/>
        <source>%1 nodes, %2 child groups</source>
        <translation>%1 Knoten, %2 Untergruppen</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="270"/>
        <source>Operators</source>
        <translation>Operatoren</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorHtml.cpp" line="273"/>
        <source>Double-click the group on the canvas to open or close it.</source>
        <translation>Doppelklick auf die Gruppe öffnet oder schließt sie.</translation>
    </message>
</context>
<context>
    <name>portolan::gui::MainWindow</name>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="60"/>
        <source>Portolan</source>
        <translation>Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="153"/>
        <source>Open an ONNX model (File → Open…) to see its summary.</source>
        <translation>Öffnen Sie ein ONNX-Modell (Datei → Öffnen…), um seine Zusammenfassung zu sehen.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="163"/>
        <source>Groups</source>
        <translation>Gruppen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="164"/>
        <source>Inspector</source>
        <translation>Inspektor</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="165"/>
        <source>Summary</source>
        <translation>Zusammenfassung</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="312"/>
        <source>Layout failed</source>
        <translation>Layout fehlgeschlagen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="234"/>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="85"/>
        <source>Main graph</source>
        <translation>Hauptgraph</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="167"/>
        <location filename="../app/gui/MainWindowSetup.cpp" line="178"/>
        <source>Pipeline</source>
        <translation>Pipeline</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="187"/>
        <location filename="../app/gui/MainWindowSetup.cpp" line="213"/>
        <source>Compare</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="190"/>
        <source>Findings</source>
        <translation>Befunde</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="235"/>
        <source>&amp;Open…</source>
        <translation>Ö&amp;ffnen…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="236"/>
        <source>&amp;Save Session…</source>
        <translation>Sitzung &amp;speichern…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="237"/>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="238"/>
        <source>Open &amp;Sample Model</source>
        <translation>&amp;Beispielmodell öffnen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="240"/>
        <source>&amp;Export View…</source>
        <translation>Ansicht &amp;exportieren…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="240"/>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="241"/>
        <source>Export Port &amp;Report…</source>
        <translation>Port-&amp;Bericht exportieren…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="241"/>
        <source>Ctrl+Shift+E</source>
        <translation>Ctrl+Shift+E</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="243"/>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="246"/>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="247"/>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="249"/>
        <source>&amp;Redo</source>
        <translation>&amp;Wiederholen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="254"/>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="255"/>
        <source>&amp;Fit to Window</source>
        <translation>An &amp;Fenster anpassen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="255"/>
        <source>Ctrl+0</source>
        <translation>Ctrl+0</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="260"/>
        <source>Zoom &amp;In</source>
        <translation>Ver&amp;größern</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="261"/>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="266"/>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="267"/>
        <source>&amp;About Portolan</source>
        <translation>Ü&amp;ber Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="273"/>
        <source>Search</source>
        <translation>Suche</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="277"/>
        <source>Search nodes, ops (op:Conv), tensors (tensor:x)…</source>
        <translation>Knoten, Operatoren (op:Conv), Tensoren (tensor:x) suchen…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="284"/>
        <source>Previous</source>
        <translation>Zurück</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="285"/>
        <source>Next</source>
        <translation>Weiter</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="287"/>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="190"/>
        <location filename="../app/gui/MainWindowSetup.cpp" line="314"/>
        <source>No model</source>
        <translation>Kein Modell</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="86"/>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="123"/>
        <source>Sample model</source>
        <translation>Beispielmodell</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="123"/>
        <source>The bundled sample model is missing from this build.</source>
        <translation>Das mitgelieferte Beispielmodell fehlt in diesem Build.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="139"/>
        <location filename="../app/gui/MainWindow.cpp" line="191"/>
        <source>Cannot open %1</source>
        <translation>%1 kann nicht geöffnet werden</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="152"/>
        <source>Open a model first: a session is a model and how it is looked at.</source>
        <translation>Öffnen Sie zuerst ein Modell: Eine Sitzung ist ein Modell und die Art, es zu betrachten.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="154"/>
        <source>The bundled sample has no file of its own to point to; open a model file to save a session.</source>
        <translation>Das mitgelieferte Beispiel hat keine eigene Datei, auf die verwiesen werden kann; öffnen Sie eine Modelldatei, um eine Sitzung zu speichern.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="169"/>
        <location filename="../app/gui/MainWindow.cpp" line="175"/>
        <source>Save Session</source>
        <translation>Sitzung speichern</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="169"/>
        <source>Portolan sessions (*.portolan)</source>
        <translation>Portolan-Sitzungen (*.portolan)</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="177"/>
        <source>Session saved to %1</source>
        <translation>Sitzung nach %1 gespeichert</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="217"/>
        <source>%1 — %2 nodes, %3 initializers (%4), %5 findings</source>
        <translation>%1 — %2 Knoten, %3 Initialisierer (%4), %5 Befunde</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="223"/>
        <source>%1 — Portolan</source>
        <translation>%1 — Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="244"/>
        <source>no match</source>
        <translation>kein Treffer</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="258"/>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="324"/>
        <source>Running the reference for %1…</source>
        <translation>Referenzlauf für %1…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="352"/>
        <source>Comparing</source>
        <translation>Vergleich läuft</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="355"/>
        <source>Compiling</source>
        <translation>Kompilierung läuft</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="357"/>
        <source>Loading</source>
        <translation>Laden</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="359"/>
        <source>Writing the report</source>
        <translation>Bericht wird geschrieben</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="398"/>
        <source>main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="477"/>
        <location filename="../app/gui/MainWindow.cpp" line="478"/>
        <source>Input model</source>
        <translation>Eingabemodell</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="492"/>
        <source>made by %1 from: %2</source>
        <translation>erzeugt von %1 aus: %2</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="493"/>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="507"/>
        <source>Before %1 — %2 nodes, struck through: removed</source>
        <translation>Vor %1 — %2 Knoten, durchgestrichen: entfernt</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="508"/>
        <source>After %1 — %2 nodes, green: created</source>
        <translation>Nach %1 — %2 Knoten, grün: erzeugt</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="511"/>
        <source>Pass diff</source>
        <translation>Pass-Vergleich</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="517"/>
        <source>Open ONNX Model</source>
        <translation>ONNX-Modell öffnen</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="518"/>
        <source>ONNX models (*.onnx);;Portolan sessions (*.portolan);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Portolan-Sitzungen (*.portolan);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="528"/>
        <location filename="../app/gui/MainWindow.cpp" line="534"/>
        <source>Export View</source>
        <translation>Ansicht exportieren</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="528"/>
        <source>SVG image (*.svg);;PNG image (*.png)</source>
        <translation>SVG-Bild (*.svg);;PNG-Bild (*.png)</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindow.cpp" line="534"/>
        <source>Cannot write %1.</source>
        <translation>%1 kann nicht geschrieben werden.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="37"/>
        <source>Run a comparison first (the Compare dock): the report is about its result.</source>
        <translation>Führen Sie zuerst einen Vergleich aus (Vergleichsleiste): Der Bericht handelt von seinem Ergebnis.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="64"/>
        <source>Writing the port report to %1…</source>
        <translation>Port-Bericht wird nach %1 geschrieben…</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="69"/>
        <location filename="../app/gui/MainWindowReport.cpp" line="79"/>
        <location filename="../app/gui/MainWindowReport.cpp" line="83"/>
        <location filename="../app/gui/MainWindowReport.cpp" line="86"/>
        <source>Export Port Report</source>
        <translation>Port-Bericht exportieren</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="83"/>
        <source>A port report is being written: wait for it to finish.</source>
        <translation>Ein Port-Bericht wird gerade geschrieben: Warten Sie, bis er fertig ist.</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="87"/>
        <source>PDF (*.pdf);;HTML (*.html);;JSON (*.json);;Markdown (*.md)</source>
        <translation>PDF (*.pdf);;HTML (*.html);;JSON (*.json);;Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowReport.cpp" line="71"/>
        <source>Port report written to %1</source>
        <translation>Port-Bericht nach %1 geschrieben</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="358"/>
        <source>About Portolan</source>
        <translation>Über Portolan</translation>
    </message>
    <message>
        <location filename="../app/gui/MainWindowSetup.cpp" line="359"/>
        <source>&lt;h3&gt;Portolan %1&lt;/h3&gt;&lt;p&gt;A workbench for porting ONNX models to accelerators.&lt;/p&gt;&lt;p&gt;Qt %2, ONNX 1.12.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Portolan %1&lt;/h3&gt;&lt;p&gt;Eine Werkbank zum Portieren von ONNX-Modellen auf Beschleuniger.&lt;/p&gt;&lt;p&gt;Qt %2, ONNX 1.12.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>portolan::views::ComparePanel</name>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="108"/>
        <source>seeded random inputs; or a test_data_set folder</source>
        <translation>Zufallseingaben mit Startwert; oder ein test_data_set-Ordner</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="82"/>
        <location filename="../views/compare/ComparePanel.cpp" line="109"/>
        <location filename="../views/compare/ComparePanel.cpp" line="117"/>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="60"/>
        <source>Reference interpreter</source>
        <translation>Referenzinterpreter</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="62"/>
        <source>Compiled CPU executor at %1</source>
        <translation>Kompilierter CPU-Executor mit %1</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="63"/>
        <source>Compiled at fp32 against B at fp16 tells precision apart from kernels; A compiled goes with B compiled</source>
        <translation>Kompiliert mit fp32 gegen B mit fp16 trennt Genauigkeit von Kerneln; A kompiliert setzt B kompiliert voraus</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="65"/>
        <source>Compiled CPU executor</source>
        <translation>Kompilierter CPU-Executor</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="65"/>
        <location filename="../views/compare/ComparePanel.cpp" line="84"/>
        <source>Imported run</source>
        <translation>Importierter Lauf</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="65"/>
        <source>External command</source>
        <translation>Externer Befehl</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="67"/>
        <source>CUDA executor (local GPU)</source>
        <translation>CUDA-Executor (lokale GPU)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="69"/>
        <source>ONNX Runtime</source>
        <translation>ONNX Runtime</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="72"/>
        <source>optimizations: %1</source>
        <translation>Optimierungen: %1</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="73"/>
        <source>ONNX Runtime&apos;s graph optimization level (installed on first use with npm into the cache); every tensor its optimized graph keeps is compared</source>
        <translation>Die Graph-Optimierungsstufe von ONNX Runtime (beim ersten Gebrauch mit npm in den Cache installiert); verglichen wird jeder Tensor, den sein optimierter Graph behält</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="79"/>
        <source>int8&apos;s calibration batches: random:N[:SEED], or a folder of test_data_set_N folders</source>
        <translation>Kalibrierdaten für int8: random:N[:SEED] oder ein Ordner mit test_data_set_N-Ordnern</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="81"/>
        <source>another runtime&apos;s tensors: a folder of .pb/.npy, an .npz, or Polygraphy&apos;s .json[#RUNNER]</source>
        <translation>Tensoren einer anderen Laufzeit: ein Ordner mit .pb/.npy, eine .npz oder Polygraphys .json[#RUNNER]</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="85"/>
        <source>Runs (*.npz *.json);;All files (*)</source>
        <translation>Läufe (*.npz *.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="90"/>
        <source>another runtime as a command: CMD {model} {inputs} {outputs}</source>
        <translation>eine andere Laufzeit als Befehl: CMD {model} {inputs} {outputs}</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="91"/>
        <source>Run through /bin/sh on the model file as loaded. {inputs} holds input_K.pb and NAME.npy; the command writes outputs (and any intermediates) into {outputs} as .pb or .npy.</source>
        <translation>Läuft über /bin/sh auf der geladenen Modelldatei. {inputs} enthält input_K.pb und NAME.npy; der Befehl schreibt die Ausgaben (und beliebige Zwischenwerte) als .pb oder .npy nach {outputs}.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="111"/>
        <source>Inputs (input_K.pb)</source>
        <translation>Eingaben (input_K.pb)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="116"/>
        <source>single inputs: name=FILE.npy; other=FILE.pb; third=random:SEED (over the test set&apos;s, or random)</source>
        <translation>einzelne Eingaben: name=DATEI.npy; andere=DATEI.pb; dritte=random:SEED (über denen des Testsatzes, sonst zufällig)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="118"/>
        <source>Add .pb or .npy files, each for the input it names (a .pb&apos;s stored name, a .npy&apos;s file name)</source>
        <translation>.pb- oder .npy-Dateien hinzufügen, jede für die Eingabe, die sie nennt (der in der .pb gespeicherte Name, der Dateiname der .npy)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="120"/>
        <location filename="../views/compare/ComparePanel.cpp" line="198"/>
        <source>Input files</source>
        <translation>Eingabedateien</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="120"/>
        <source>Tensors (*.pb *.npy)</source>
        <translation>Tensoren (*.pb *.npy)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="133"/>
        <source>Random inputs: the K-th graph input gets seed N+K, as with portolan compare --seed N</source>
        <translation>Zufällige Eingaben: der K-te Graph-Eingang erhält den Seed N+K, wie bei portolan compare --seed N</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="135"/>
        <source>symbolic inputs: name=1,3,224,224; other=1,128</source>
        <translation>symbolische Eingaben: name=1,3,224,224; andere=1,128</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="138"/>
        <source>1e-5 × scale × √depth</source>
        <translation>1e-5 × Skala × √Tiefe</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="139"/>
        <source>1e-5 × √depth</source>
        <translation>1e-5 × √Tiefe</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="140"/>
        <source>no drift</source>
        <translation>keine Drift</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="141"/>
        <source>Judge every tensor out of tolerance a bug, however little past it (portolan compare --no-drift). By default, error up to what the precision&apos;s rounding explains is drift.</source>
        <translation>Jeden Tensor außerhalb der Toleranz als Fehler werten, wie knapp auch immer (portolan compare --no-drift). Sonst gilt ein Fehler bis zu dem, was die Rundung der Genauigkeit erklärt, als Drift.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="144"/>
        <source>max error / reference scale</source>
        <translation>max. Fehler / Referenzskala</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="144"/>
        <source>max abs error</source>
        <translation>max. absoluter Fehler</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="144"/>
        <source>1 − cosine</source>
        <translation>1 − Kosinus</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="146"/>
        <source>Compare</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="148"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="153"/>
        <location filename="../views/compare/ComparePanel.cpp" line="416"/>
        <source>running A and B: %p%</source>
        <translation>A und B laufen: %p%</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="163"/>
        <source>checking the failing kernels…</source>
        <translation>die abweichenden Kernel werden geprüft…</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="165"/>
        <source>Reference interpreter (A) against the compiled CPU executor (B).</source>
        <translation>Referenzinterpreter (A) gegen den kompilierten CPU-Executor (B).</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="173"/>
        <source>seed</source>
        <translation>Startwert</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="185"/>
        <source>atol</source>
        <translation>atol</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="187"/>
        <source>rtol</source>
        <translation>rtol</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="190"/>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="191"/>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="192"/>
        <source>Pipeline, precision</source>
        <translation>Pipeline, Genauigkeit</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="193"/>
        <source>Other runtime</source>
        <translation>Andere Laufzeit</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="194"/>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="199"/>
        <source>Shapes</source>
        <translation>Formen</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="200"/>
        <source>Tolerance</source>
        <translation>Toleranz</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="201"/>
        <source>Heat on graph</source>
        <translation>Wärmebild im Graphen</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="202"/>
        <source>Extract Repro…</source>
        <translation>Repro herauslösen…</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="203"/>
        <source>Cut the selected suspect (or the first divergence) out as a standalone model with the inputs B gave it and the reference&apos;s outputs, shrunk while it still fails</source>
        <translation>Den gewählten Verdächtigen (oder die erste Abweichung) als eigenständiges Modell herauslösen, mit den Eingaben, die B ihm gab, und den Ausgaben der Referenz; verkleinert, solange der Fehler bleibt</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="206"/>
        <source>Bisect Precision</source>
        <translation>Genauigkeit bisektieren</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="207"/>
        <source>Find the nodes to keep at fp32 for B&apos;s outputs to meet the tolerance</source>
        <translation>Die Knoten finden, die bei fp32 bleiben müssen, damit die Ausgaben von B die Toleranz einhalten</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="233"/>
        <source>Suspect</source>
        <translation>Verdächtig</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="233"/>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="233"/>
        <source>Why</source>
        <translation>Warum</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="239"/>
        <source>Suspects</source>
        <translation>Verdächtige</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="240"/>
        <source>Tensors</source>
        <translation>Tensoren</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="241"/>
        <source>Error by depth</source>
        <translation>Fehler nach Tiefe</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="242"/>
        <source>GPU profile</source>
        <translation>GPU-Profil</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="60"/>
        <location filename="../views/compare/ComparePanelResults.cpp" line="67"/>
        <source>Extract Repro</source>
        <translation>Repro herauslösen</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="60"/>
        <location filename="../views/compare/ComparePanelResults.cpp" line="77"/>
        <source>No tensor goes out of tolerance on its own: pick a suspect first.</source>
        <translation>Kein Tensor verlässt die Toleranz von selbst: wählen Sie zuerst einen Verdächtigen.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="63"/>
        <source>Folder for the repro around %1</source>
        <translation>Ordner für das Repro um %1</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="67"/>
        <source>%1 holds files. Write the repro into it anyway?</source>
        <translation>%1 enthält Dateien. Das Repro trotzdem hineinschreiben?</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="82"/>
        <source>Cutting a repro around %1…</source>
        <translation>Repro um %1 wird herausgelöst…</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanelResults.cpp" line="93"/>
        <source>Wrote a repro around %1 (%n node(s)) to %2: B is %3 the reference there.</source>
        <translation>
            <numerusform>Repro um %1 (%n Knoten) nach %2 geschrieben: B ist dort %3 der Referenz.</numerusform>
            <numerusform>Repro um %1 (%n Knoten) nach %2 geschrieben: B ist dort %3 der Referenz.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="95"/>
        <source>OUT OF TOLERANCE against</source>
        <translation>AUSSERHALB DER TOLERANZ gegenüber</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="95"/>
        <source>within tolerance of</source>
        <translation>innerhalb der Toleranz</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="112"/>
        <source>Bisecting: which nodes must stay at fp32…</source>
        <translation>Bisektion: welche Knoten bei fp32 bleiben müssen…</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="118"/>
        <source>B already meets the tolerance at %1: nothing to keep at fp32.</source>
        <translation>B hält die Toleranz bei %1 bereits ein: nichts muss bei fp32 bleiben.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="124"/>
        <source>Keep %1 of the %2 nodes %3 lowers at fp32 (worst output error %4 of its scale, %5 runs):%6</source>
        <translation>%1 der %2 Knoten, die %3 absenkt, bei fp32 lassen (schlechtester Ausgabefehler %4 seiner Skala, %5 Läufe):%6</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="196"/>
        <source>out of tolerance, as drift</source>
        <translation>außerhalb der Toleranz, als Drift</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="197"/>
        <source>OUT OF TOLERANCE: a bug</source>
        <translation>AUSSERHALB DER TOLERANZ: ein Fehler</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="198"/>
        <source>%1 against %2: %3 tensors compared: %4 equivalent, %5 drift, %6 bug; outputs %7. A %8 s, B %9 s.</source>
        <translation>%1 gegen %2: %3 Tensoren verglichen: %4 gleichwertig, %5 Drift, %6 Fehler; Ausgaben %7. A %8 s, B %9 s.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="422"/>
        <source>Running A and B…</source>
        <translation>A und B laufen…</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="452"/>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanel.cpp" line="471"/>
        <source>Cancelling…</source>
        <translation>Wird abgebrochen…</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanelResults.cpp" line="161"/>
        <source>
On %1: kernels %2 ms; %n node(s) on the CPU, %3 ms.</source>
        <translation>
            <numerusform>
Auf %1: Kernel %2 ms; %n Knoten auf der CPU, %3 ms.</numerusform>
            <numerusform>
Auf %1: Kernel %2 ms; %n Knoten auf der CPU, %3 ms.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="169"/>
        <source> Slowest kernel: %1 (%2, %3) %4 ms</source>
        <translation> Langsamster Kernel: %1 (%2, %3) %4 ms</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="174"/>
        <source> (the device&apos;s peaks were not measured).</source>
        <translation> (die Spitzenwerte des Geräts wurden nicht gemessen).</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="176"/>
        <source>, %1% of the copy bandwidth, %2% of the MatMul rate.</source>
        <translation>, %1% der Kopierbandbreite, %2% der MatMul-Rate.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="195"/>
        <location filename="../views/compare/ComparePanelResults.cpp" line="257"/>
        <source>within tolerance</source>
        <translation>innerhalb der Toleranz</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="208"/>
        <source>
First divergence: %1, output %2.</source>
        <translation>
Erste Abweichung: %1, Ausgabe %2.</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/compare/ComparePanelResults.cpp" line="214"/>
        <source>
%n imported tensor(s) named as no value of the model: %1</source>
        <translation>
            <numerusform>
%n importierter Tensor trägt den Namen keines Werts im Modell: %1</numerusform>
            <numerusform>
%n importierte Tensoren tragen den Namen keines Werts im Modell: %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="242"/>
        <source>▶ first divergence: %1</source>
        <translation>▶ erste Abweichung: %1</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="254"/>
        <source>Error by depth (B&apos;s order); click a point to go to its node</source>
        <translation>Fehler nach Tiefe (Reihenfolge von B); Klick auf einen Punkt zeigt seinen Knoten</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="258"/>
        <source>out of tolerance</source>
        <translation>außerhalb der Toleranz</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="273"/>
        <source>tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparePanelResults.cpp" line="278"/>
        <source>max error / scale</source>
        <translation>max. Fehler / Skala</translation>
    </message>
</context>
<context>
    <name>portolan::views::ComparisonTableModel</name>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="50"/>
        <source> (output)</source>
        <translation> (Ausgabe)</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="52"/>
        <source>node %1</source>
        <translation>Knoten %1</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="61"/>
        <source>mismatch</source>
        <translation>unvergleichbar</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="62"/>
        <source>equivalent</source>
        <translation>gleichwertig</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="62"/>
        <source>drift</source>
        <translation>Drift</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="62"/>
        <source>BUG</source>
        <translation>FEHLER</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="77"/>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="78"/>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="79"/>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="80"/>
        <source>Max abs</source>
        <translation>Max. abs.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="81"/>
        <source>Max rel</source>
        <translation>Max. rel.</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="82"/>
        <source>Cosine</source>
        <translation>Kosinus</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="83"/>
        <source>SNR dB</source>
        <translation>SNR dB</translation>
    </message>
    <message>
        <location filename="../views/compare/ComparisonTableModel.cpp" line="84"/>
        <source>Needed atol</source>
        <translation>Nötiges atol</translation>
    </message>
</context>
<context>
    <name>portolan::views::FindingsPanel</name>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="34"/>
        <source>No target</source>
        <translation>Kein Ziel</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="39"/>
        <source>Check the model against a target&apos;s published op support (profiles: docs/targets.md)</source>
        <translation>Das Modell gegen die veröffentlichte Op-Unterstützung eines Ziels prüfen (Profile: docs/targets.md)</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="48"/>
        <source>Finding</source>
        <translation>Befund</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="48"/>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="48"/>
        <source>Detail</source>
        <translation>Detail</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="62"/>
        <source>Target:</source>
        <translation>Ziel:</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="70"/>
        <source>Profile skipped: %1
</source>
        <translation>Profil übersprungen: %1
</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="132"/>
        <source>Checking against %1…</source>
        <translation>Prüfung gegen %1…</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="132"/>
        <source>Tracing dynamic dims…</source>
        <translation>Dynamische Dimensionen werden verfolgt…</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="214"/>
        <source>Open a model to see what a target can run of it.</source>
        <translation>Öffnen Sie ein Modell, um zu sehen, was ein Ziel davon ausführen kann.</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="231"/>
        <source>%1 can run all %2 nodes.</source>
        <translation>%1 kann alle %2 Knoten ausführen.</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="232"/>
        <source>%1 cannot run %2 of %3 nodes.</source>
        <translation>%1 kann %2 von %3 Knoten nicht ausführen.</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="233"/>
        <source>%1 (profile: %2, %3)</source>
        <translation>%1 (Profil: %2, %3)</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="238"/>
        <source>any op</source>
        <translation>jede Op</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="244"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n Knoten</numerusform>
            <numerusform>%n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="253"/>
        <source>With the rest on the host</source>
        <translation>Mit dem Rest auf dem Host</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="254"/>
        <source>%1 target partition(s), %2 host partition(s), %3 tensor(s) crossing each run</source>
        <translation>%1 Ziel-Partition(en), %2 Host-Partition(en), %3 Tensor(en) wechseln bei jedem Lauf</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="259"/>
        <source>Every pass fix together</source>
        <translation>Alle Pass-Korrekturen zusammen</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="260"/>
        <source>portolan optimize --pipeline &apos;%1&apos; leaves %2 unsupported</source>
        <translation>portolan optimize --pipeline &apos;%1&apos; lässt %2 nicht unterstützt</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="262"/>
        <source>Pick a target to see which nodes it cannot run and why.</source>
        <translation>Wählen Sie ein Ziel, um zu sehen, welche Knoten es nicht ausführen kann und warum.</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="266"/>
        <source>Dynamic dims (%n origin(s))</source>
        <translation>
            <numerusform>Dynamische Dimensionen (%n Ursprung)</numerusform>
            <numerusform>Dynamische Dimensionen (%n Ursprünge)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../views/diagnose/FindingsPanel.cpp" line="271"/>
        <source>reaches %n value(s)</source>
        <translation>
            <numerusform>erreicht %n Wert</numerusform>
            <numerusform>erreicht %n Werte</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="275"/>
        <source>Dynamic dims</source>
        <translation>Dynamische Dimensionen</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="275"/>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="278"/>
        <source>Findings (%1)</source>
        <translation>Befunde (%1)</translation>
    </message>
    <message>
        <location filename="../views/diagnose/FindingsPanel.cpp" line="286"/>
        <source>none: the checker, shape inference and the export pitfalls found nothing</source>
        <translation>keine: Checker, Forminferenz und Exportfallen fanden nichts</translation>
    </message>
</context>
<context>
    <name>portolan::views::GpuProfileView</name>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>Precision</source>
        <translation>Präzision</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>of copy</source>
        <translation>der Kopierrate</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="22"/>
        <source>GFLOP/s</source>
        <translation>GFLOP/s</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="23"/>
        <source>of MatMul</source>
        <translation>der MatMul-Rate</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="23"/>
        <source>Why</source>
        <translation>Warum</translation>
    </message>
    <message>
        <location filename="../views/compare/GpuProfileView.cpp" line="26"/>
        <source>B&apos;s nodes by time in one unobserved run: device time for kernels, host time for the CPU&apos;s; shares of the device&apos;s measured copy bandwidth and matrix-product rate</source>
        <translation>Die Knoten von B nach Zeit in einem unbeobachteten Lauf: Gerätezeit für Kernel, Hostzeit für die der CPU; Anteile an der gemessenen Kopierbandbreite und Matrixprodukt-Rate des Geräts</translation>
    </message>
</context>
<context>
    <name>portolan::views::GraphCanvas</name>
    <message>
        <location filename="../views/graph/GraphCanvas.cpp" line="361"/>
        <source>Not on %1:</source>
        <translation>Nicht auf %1:</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="178"/>
        <source>Laying out the graph…</source>
        <translation>Graph wird angeordnet…</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="178"/>
        <source>Open an ONNX model (File → Open…) to see its graph.</source>
        <translation>Öffnen Sie ein ONNX-Modell (Datei → Öffnen…), um seinen Graphen zu sehen.</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="201"/>
        <source>Conv / MatMul / attention</source>
        <translation>Conv / MatMul / Attention</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="202"/>
        <source>activation</source>
        <translation>Aktivierung</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="203"/>
        <source>normalization</source>
        <translation>Normalisierung</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="204"/>
        <source>pooling / resize</source>
        <translation>Pooling / Skalierung</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="205"/>
        <source>elementwise / reduction</source>
        <translation>elementweise / Reduktion</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="206"/>
        <source>shape / data movement</source>
        <translation>Form / Datenbewegung</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="207"/>
        <source>quantization</source>
        <translation>Quantisierung</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="208"/>
        <source>control flow</source>
        <translation>Kontrollfluss</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="209"/>
        <source>constant</source>
        <translation>Konstante</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="210"/>
        <source>custom domain</source>
        <translation>eigene Domäne</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="252"/>
        <source>%1: %n node(s) it cannot run, framed dashed</source>
        <translation>
            <numerusform>%1: %n Knoten, den es nicht ausführen kann, gestrichelt umrandet</numerusform>
            <numerusform>%1: %n Knoten, die es nicht ausführen kann, gestrichelt umrandet</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="287"/>
        <source>log scale</source>
        <translation>log. Skala</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="290"/>
        <source>grey: not compared</source>
        <translation>grau: nicht verglichen</translation>
    </message>
    <message>
        <location filename="../views/graph/GraphCanvasPaint.cpp" line="353"/>
        <source>Portolan graph</source>
        <translation>Portolan-Graph</translation>
    </message>
</context>
<context>
    <name>portolan::views::InspectorPanel</name>
    <message>
        <location filename="../views/inspector/InspectorPanel.cpp" line="34"/>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorPanel.cpp" line="35"/>
        <source>Values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorPanel.cpp" line="36"/>
        <source>Histogram</source>
        <translation>Histogramm</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorPanel.cpp" line="56"/>
        <source>Select a node, tensor or group on the canvas.</source>
        <translation>Wählen Sie einen Knoten, Tensor oder eine Gruppe im Graphen.</translation>
    </message>
    <message>
        <location filename="../views/inspector/InspectorPanel.cpp" line="145"/>
        <source>%1 finite values, %2 bins</source>
        <translation>%1 endliche Werte, %2 Klassen</translation>
    </message>
</context>
<context>
    <name>portolan::views::PipelinePanel</name>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="39"/>
        <source>Double-click a pass to append it to the pipeline.</source>
        <translation>Doppelklick hängt einen Pass an die Pipeline an.</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="46"/>
        <source>-O2, or passes: infer-shapes,fuse-layer-norm{max-epsilon=1e-3},eliminate-dead</source>
        <translation>-O2, oder Passes: infer-shapes,fuse-layer-norm{max-epsilon=1e-3},eliminate-dead</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="51"/>
        <source>Run</source>
        <translation>Ausführen</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="52"/>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="53"/>
        <source>Step back</source>
        <translation>Schritt zurück</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="54"/>
        <source>Reset</source>
        <translation>Zurücksetzen</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>Pass</source>
        <translation>Pass</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>Changed</source>
        <translation>Geändert</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>Rewrites</source>
        <translation>Umschreibungen</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="64"/>
        <source>Statistics</source>
        <translation>Statistik</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="70"/>
        <source>Rewrite or near-miss</source>
        <translation>Umschreibung oder Beinahe-Treffer</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="70"/>
        <source>Detail</source>
        <translation>Detail</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="110"/>
        <source>show the input model</source>
        <translation>Eingabemodell zeigen</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="110"/>
        <source>show step %1</source>
        <translation>Schritt %1 zeigen</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/pipeline/PipelinePanel.cpp" line="217"/>
        <source>Running %n pass(es)…</source>
        <translation>
            <numerusform>%n Pass wird ausgeführt…</numerusform>
            <numerusform>%n Passes werden ausgeführt…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="244"/>
        <source>%1 passes in %2 ms; %3 → %4 nodes</source>
        <translation>%1 Passes in %2 ms; %3 → %4 Knoten</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="281"/>
        <source>this pass changed the graph</source>
        <translation>dieser Pass hat den Graphen geändert</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="281"/>
        <source>no change</source>
        <translation>keine Änderung</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="324"/>
        <source>Rewrites (%1)</source>
        <translation>Umschreibungen (%1)</translation>
    </message>
    <message numerus="yes">
        <location filename="../views/pipeline/PipelinePanel.cpp" line="332"/>
        <source>%n node(s) → %1</source>
        <translation>
            <numerusform>%n Knoten → %1</numerusform>
            <numerusform>%n Knoten → %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="333"/>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="346"/>
        <source>Near-misses (%1)</source>
        <translation>Beinahe-Treffer (%1)</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="355"/>
        <source>changed without recorded rewrites</source>
        <translation>geändert ohne aufgezeichnete Umschreibungen</translation>
    </message>
    <message>
        <location filename="../views/pipeline/PipelinePanel.cpp" line="355"/>
        <source>nothing to do</source>
        <translation>nichts zu tun</translation>
    </message>
</context>
<context>
    <name>portolan::views::ScopeBreadcrumbs</name>
    <message>
        <location filename="../views/graph/ScopeBreadcrumbs.cpp" line="57"/>
        <source>main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <location filename="../views/graph/ScopeBreadcrumbs.cpp" line="58"/>
        <source>The whole graph</source>
        <translation>Der ganze Graph</translation>
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
        <location filename="../views/common/ScopeTreeModel.cpp" line="103"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../views/common/ScopeTreeModel.cpp" line="103"/>
        <source>Operator / size</source>
        <translation>Operator / Größe</translation>
    </message>
</context>
<context>
    <name>portolan::views::TensorValuesModel</name>
    <message>
        <location filename="../views/inspector/TensorValuesModel.cpp" line="59"/>
        <source>%1 (of %2)</source>
        <translation>%1 (von %2)</translation>
    </message>
</context>
</TS>
