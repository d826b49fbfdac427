// The graph canvas on real exported models and a 100k-node graph: every node drawn, no two boxes on
// top of each other, groups collapse and open, search finds what it should, exports are real images.
#include "support/TestSupport.h"

#include "analysis/GraphSearch.h"
#include "views/graph/GraphCanvas.h"
#include "ir/ModelLoader.h"

#include <QSignalSpy>
#include <QtTest>

using namespace portolan;

namespace {

std::unique_ptr<ir::Model> loadFixture(const std::string &name)
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name + "/model.onnx");
    return loaded ? std::move(loaded->model) : nullptr;
}

bool waitForScene(views::GraphCanvas &canvas)
{
    QSignalSpy ready(&canvas, &views::GraphCanvas::sceneReady);
    return ready.wait(60000);
}

// Shows the main graph of `model` on `canvas` at `size` and waits for its layout.
bool layOut(views::GraphCanvas &canvas, const ir::Model &model, QSize size = {1000, 800})
{
    canvas.resize(size);
    canvas.setGraph(&model, model.mainGraph());
    return waitForScene(canvas);
}

std::optional<std::size_t> groupNamed(const ir::NameScopeTree &tree, const std::string &path)
{
    for (std::size_t g = 0; g < tree.groupCount(); ++g)
        if (tree.pathOf(g) == path)
            return g;
    return std::nullopt;
}

} // namespace

class TestGraphCanvas : public QObject {
    Q_OBJECT

private slots:
    void everyNodeIsDrawnAndNoBoxesOverlap_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const std::string &n : test::fixtureNames())
            QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }

    void everyNodeIsDrawnAndNoBoxesOverlap()
    {
        QFETCH(QString, fixture);
        auto model = loadFixture(fixture.toStdString());
        QVERIFY(model);
        views::GraphCanvas canvas;
        QVERIFY(layOut(canvas, *model, {1000, 800}));
        const auto &scene = *canvas.scene();
        for (auto n : model->graph(model->mainGraph()).nodes)
            QVERIFY2(scene.boxOf(n), model->node(n).name.c_str());
        for (auto v : model->graph(model->mainGraph()).outputs)
            QVERIFY(scene.boxOfTerminal(v));

        const auto &boxes = scene.boxes();
        const auto bounds = scene.bounds();
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            QVERIFY(boxes[i].rect.width > 0 && boxes[i].rect.height > 0);
            QVERIFY(boxes[i].rect.x >= bounds.x - 1 && boxes[i].rect.right() <= bounds.right() + 1);
            QVERIFY(boxes[i].rect.bottom() <= bounds.bottom() + 1);
            if (boxes[i].kind == layout::BoxKind::ExpandedGroup)
                continue;
            for (std::size_t j = i + 1; j < boxes.size(); ++j) {
                if (boxes[j].kind == layout::BoxKind::ExpandedGroup)
                    continue;
                layout::Rect a = boxes[i].rect, b = boxes[j].rect;
                a = {a.x + 1, a.y + 1, a.width - 2, a.height - 2}; // touching is not overlapping
                QVERIFY2(!a.intersects(b), qPrintable(QString("boxes %1 and %2 overlap").arg(i).arg(j)));
            }
        }
        // every frame holds the boxes inside it
        for (auto n : model->graph(model->mainGraph()).nodes) {
            const auto &box = boxes[*scene.boxOf(n)];
            for (auto g : layout::ancestorsOf(*canvas.scopes(), n))
                if (auto frame = scene.boxOfGroup(g); frame && boxes[*frame].kind == layout::BoxKind::ExpandedGroup) {
                    const auto &f = boxes[*frame].rect;
                    QVERIFY(box.rect.x >= f.x && box.rect.right() <= f.right() && box.rect.y >= f.y &&
                            box.rect.bottom() <= f.bottom());
                }
        }
        QVERIFY(!scene.edges().empty());
        for (const auto &edge : scene.edges()) {
            QVERIFY(edge.from != edge.to);
            QVERIFY(edge.path.size() >= 2);
        }
    }

    void groupsCollapseAndOpen()
    {
        auto model = loadFixture("cnn_bn");
        QVERIFY(model);
        views::GraphCanvas canvas;
        QVERIFY(layOut(canvas, *model, {1000, 800}));
        const auto layer1 = groupNamed(*canvas.scopes(), "/layer1");
        QVERIFY(layer1);
        QVERIFY(canvas.expandedGroups().count(*layer1)); // a small model opens fully
        std::vector<ir::NodeId> inside;
        for (auto n : model->graph(model->mainGraph()).nodes)
            if (model->node(n).name.rfind("/layer1/", 0) == 0)
                inside.push_back(n);
        QVERIFY(inside.size() > 2);
        std::set<std::size_t> ownBoxes;
        for (auto n : inside)
            ownBoxes.insert(*canvas.scene()->boxOf(n));
        QCOMPARE(ownBoxes.size(), inside.size());
        const std::size_t openBoxes = canvas.scene()->boxes().size();

        canvas.toggleGroup(*layer1);
        QVERIFY(waitForScene(canvas));
        const auto groupBox = canvas.scene()->boxOfGroup(*layer1);
        QVERIFY(groupBox);
        QCOMPARE(canvas.scene()->boxes()[*groupBox].kind, layout::BoxKind::CollapsedGroup);
        for (auto n : inside)
            QCOMPARE(*canvas.scene()->boxOf(n), *groupBox);
        QVERIFY(canvas.scene()->boxes().size() < openBoxes);

        canvas.toggleGroup(*layer1);
        QVERIFY(waitForScene(canvas));
        QCOMPARE(canvas.scene()->boxes().size(), openBoxes);
        QCOMPARE(canvas.scene()->boxes()[*canvas.scene()->boxOfGroup(*layer1)].kind, layout::BoxKind::ExpandedGroup);
    }

    void hundredThousandNodesOpenOnTheirBlocks()
    {
        const std::string bytes = test::canonicalBytes(test::syntheticModel(1000, 100));
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", {});
        QVERIFY(loaded.hasValue());
        const ir::Model &model = *loaded->model;
        views::GraphCanvas canvas;
        QVERIFY(layOut(canvas, model, {1000, 800}));
        std::size_t collapsed = 0;
        for (const auto &box : canvas.scene()->boxes())
            collapsed += box.kind == layout::BoxKind::CollapsedGroup;
        QCOMPARE(collapsed, std::size_t(1000)); // /encoder opens on its 1000 layers, each one box
        QVERIFY(canvas.scene()->boxes().size() < 1100);
        canvas.grab(); // paints the zoomed-out overview

        const ir::NodeId target = model.graph(model.mainGraph()).nodes[50'042];
        canvas.revealNode(target);
        QVERIFY(waitForScene(canvas));
        const auto box = canvas.scene()->boxOf(target);
        QVERIFY(box);
        QCOMPARE(canvas.scene()->boxes()[*box].kind, layout::BoxKind::Node);
        const auto c = canvas.scene()->boxes()[*box].rect.center();
        const QPointF onScreen = canvas.toWidget(QPointF(c.x, c.y));
        QVERIFY(std::abs(onScreen.x() - 500) < 2 && std::abs(onScreen.y() - 400) < 2);
    }

    void searchFindsOpsNamesAndTensors()
    {
        auto model = loadFixture("transformer_opset17");
        QVERIFY(model);
        const auto &graph = model->graph(model->mainGraph());
        std::size_t matmuls = 0;
        for (auto n : graph.nodes)
            matmuls += model->node(n).opType == "MatMul";
        QVERIFY(matmuls > 0);
        auto hits = analysis::searchGraph(*model, model->mainGraph(), "op:matmul");
        QCOMPARE(hits.size(), matmuls);
        for (const auto &hit : hits)
            QCOMPARE(model->node(hit.node).opType, std::string("MatMul"));

        const ir::Value &input = model->value(graph.inputs.front());
        hits = analysis::searchGraph(*model, model->mainGraph(), "tensor:" + input.name);
        QVERIFY(!hits.empty());
        QCOMPARE(hits.front().value, input.id);
        QCOMPARE(hits.front().node, input.uses.front().node);

        const std::string someName = model->node(graph.nodes[graph.nodes.size() / 2]).name;
        hits = analysis::searchGraph(*model, model->mainGraph(), someName);
        QVERIFY(std::any_of(hits.begin(), hits.end(), [&](const auto &h) { return model->node(h.node).name == someName; }));
        QVERIFY(analysis::searchGraph(*model, model->mainGraph(), "no-such-thing-anywhere").empty());
    }

    void clickingAnEdgeSelectsItsTensor()
    {
        auto model = loadFixture("cnn_bn");
        QVERIFY(model);
        views::GraphCanvas canvas;
        canvas.show();
        QVERIFY(layOut(canvas, *model, {1000, 800}));
        // the edge out of the first Conv, clicked halfway down
        const auto &scene = *canvas.scene();
        const ir::NodeId conv = model->graph(model->mainGraph()).nodes.front();
        const auto box = scene.boxOf(conv);
        QVERIFY(box);
        const layout::SceneEdge *out = nullptr;
        for (const auto &edge : scene.edges())
            if (edge.from == *box && !out)
                out = &edge;
        QVERIFY(out);
        const QPointF a(out->path.front().x, out->path.front().y), b(out->path.back().x, out->path.back().y);
        canvas.revealNode(conv);
        QSignalSpy selected(&canvas, &views::GraphCanvas::valueSelected);
        const QPointF start = canvas.toWidget(a), end = canvas.toWidget(b);
        QTest::mouseClick(&canvas, Qt::LeftButton, {}, ((start + end) / 2).toPoint());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.takeFirst().at(0).value<ir::ValueId>(), out->value);
        QCOMPARE(model->value(out->value).producer, conv);
    }

    void exportsSvgAndPng()
    {
        auto model = loadFixture("cnn_bn");
        QVERIFY(model);
        views::GraphCanvas canvas;
        QVERIFY(layOut(canvas, *model, {800, 600}));
        QTemporaryDir dir;
        QVERIFY(canvas.exportSvg(dir.filePath("graph.svg")));
        QFile svg(dir.filePath("graph.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg") && text.contains("Conv"));

        QVERIFY(canvas.exportPng(dir.filePath("graph.png")));
        QImage png(dir.filePath("graph.png"));
        QVERIFY(!png.isNull());
        const auto bounds = canvas.scene()->bounds();
        QVERIFY(std::abs(png.width() - (bounds.width + 20)) <= 2);
        std::set<QRgb> colors;
        for (int y = 0; y < png.height(); y += 7)
            for (int x = 0; x < png.width(); x += 7)
                colors.insert(png.pixel(x, y));
        QVERIFY(colors.size() > 5); // boxes of several categories, text, edges

        QDir().mkpath("screenshots");
        canvas.fitToView();
        QVERIFY(canvas.grab().save("screenshots/canvas_cnn_bn.png"));
    }
};

QTEST_MAIN(TestGraphCanvas)
#include "tst_GraphCanvas.moc"
