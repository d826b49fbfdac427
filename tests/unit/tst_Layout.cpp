// Both layout engines on real graphs: every edge runs downwards, no two boxes overlap.
#include "support/TestSupport.h"

#include "layout/LayoutEngine.h"
#ifdef PORTOLAN_HAVE_GRAPHVIZ
#include "layout/GraphvizLayout.h"
#endif

#include <QtTest>

#include <unordered_map>

using namespace portolan;

namespace {

layout::LayoutInput layoutInputOf(const ir::Model &model)
{
    layout::LayoutInput input;
    std::unordered_map<ir::NodeId, std::uint32_t> index;
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        index.emplace(n, static_cast<std::uint32_t>(input.nodes.size()));
        const double width = 40.0 + 7.0 * static_cast<double>(model.node(n).opType.size());
        input.nodes.push_back({width, 28});
    }
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes)
        for (const ir::ValueId in : model.node(n).inputs)
            if (in.valid() && model.value(in).producer.valid())
                input.edges.push_back({index.at(model.value(in).producer), index.at(n)});
    return input;
}

std::unique_ptr<layout::LayoutEngine> engineNamed(const QString &name)
{
#ifdef PORTOLAN_HAVE_GRAPHVIZ
    if (name == "graphviz-dot")
        return layout::makeGraphvizLayout();
#endif
    return name == "layered" ? layout::makeLayeredLayout() : nullptr;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void realGraphs_data()
    {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<QString>("fixture");
        QStringList engines{"layered"};
#ifdef PORTOLAN_HAVE_GRAPHVIZ
        engines << "graphviz-dot";
#endif
        for (const QString &engine : engines)
            for (const char *fixture : {"cnn_bn", "transformer_opset14"})
                QTest::newRow(qPrintable(engine + " " + fixture)) << engine << fixture;
    }

    void realGraphs()
    {
        QFETCH(QString, engine);
        QFETCH(QString, fixture);
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString() + "/model.onnx");
        QVERIFY(loaded.hasValue());
        const layout::LayoutInput input = layoutInputOf(*loaded->model);
        auto result = engineNamed(engine)->layout(input);
        QVERIFY2(result.hasValue(), result.hasValue() ? "" : result.error().format().c_str());
        QCOMPARE(result->engine, engine.toStdString());
        QCOMPARE(result->centers.size(), input.nodes.size());
        QCOMPARE(result->edgePaths.size(), input.edges.size());

        for (const auto &e : input.edges)
            QVERIFY2(result->centers[e.to].y > result->centers[e.from].y, "an edge runs upwards");
        for (std::size_t i = 0; i < input.nodes.size(); ++i) {
            const auto &a = result->centers[i];
            QVERIFY(a.x - input.nodes[i].width / 2 >= -1 && a.x + input.nodes[i].width / 2 <= result->width + 1);
            QVERIFY(a.y - input.nodes[i].height / 2 >= -1 && a.y + input.nodes[i].height / 2 <= result->height + 1);
            for (std::size_t j = i + 1; j < input.nodes.size(); ++j) {
                const auto &b = result->centers[j];
                const bool overlapX = std::abs(a.x - b.x) < (input.nodes[i].width + input.nodes[j].width) / 2 - 0.5;
                const bool overlapY = std::abs(a.y - b.y) < (input.nodes[i].height + input.nodes[j].height) / 2 - 0.5;
                QVERIFY2(!(overlapX && overlapY), qPrintable(QString("boxes %1 and %2 overlap").arg(i).arg(j)));
            }
        }
        for (const auto &path : result->edgePaths)
            QVERIFY(path.size() >= 2);
    }

    void layeredHandlesBigGraphsAndBadEdges()
    {
        const std::string bytes = test::canonicalBytes(test::syntheticModel(200, 100));
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", {});
        QVERIFY(loaded.hasValue());
        const auto input = layoutInputOf(*loaded->model);
        auto result = layout::makeLayeredLayout()->layout(input);
        QVERIFY(result.hasValue());
        QCOMPARE(result->centers.size(), std::size_t(20000));

        layout::LayoutInput bad;
        bad.nodes.push_back({10, 10});
        bad.edges.push_back({0, 5});
        auto refused = layout::makeLayeredLayout()->layout(bad);
        QVERIFY(!refused.hasValue());
        QCOMPARE(refused.error().primary.code, std::string("layout-bad-edge"));
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_Layout.moc"
