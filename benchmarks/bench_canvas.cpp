// Canvas figures: time from a loaded model to the first painted frame, and paint times at several
// zooms, on a synthetic 100k-node graph with a name-scope hierarchy and on any models given.
// Run (offscreen): QT_QPA_PLATFORM=offscreen build/benchmarks/bench_canvas [MODEL.onnx…]
#include "support/TestSupport.h"

#include "views/graph/GraphCanvas.h"
#include "ir/ModelLoader.h"
#include "passes/PassManager.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>

#include <cstdio>

using namespace portolan;

namespace {

void measure(const char *title, const ir::Model &model)
{
    views::GraphCanvas canvas;
    canvas.resize(1600, 1000);
    canvas.show();
    QElapsedTimer timer;
    timer.start();
    QSignalSpy ready(&canvas, &views::GraphCanvas::sceneReady);
    canvas.setGraph(&model, model.mainGraph());
    if (!ready.wait(600000)) {
        std::printf("%-28s layout did not finish\n", title);
        return;
    }
    canvas.repaint();
    const double firstFrame = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    std::printf("%-28s %7zu nodes  %6zu boxes  first frame %8.1f ms  (%s)\n", title, model.liveNodeCount(),
                canvas.scene()->boxes().size(), firstFrame, canvas.scene()->enginesUsed().c_str());

    // worst paint over a zoom sweep around the centre, from the whole graph to 2:1
    canvas.fitToView();
    double worst = 0;
    for (int step = 0; step < 24; ++step) {
        canvas.zoomBy(1.3, QPointF(800, 500));
        canvas.repaint();
        worst = std::max(worst, canvas.lastPaintMs());
    }
    std::printf("%-28s worst paint over a 24-step zoom sweep %.2f ms\n", "", worst);

    // everything open: what a user gets after expanding every group
    std::set<std::size_t> all;
    for (std::size_t g = 1; g < canvas.scopes()->groupCount(); ++g)
        all.insert(g);
    timer.restart();
    canvas.setExpanded(all);
    if (!ready.wait(600000))
        return;
    canvas.fitToView();
    canvas.repaint();
    const double openAll = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    const double overview = canvas.lastPaintMs();
    canvas.zoomBy(200, QPointF(800, 500));
    canvas.repaint();
    std::printf("%-28s all groups open: %zu boxes, layout + frame %.1f ms, overview paint %.2f ms, close-up paint %.2f ms\n",
                "", canvas.scene()->boxes().size(), openAll, overview, canvas.lastPaintMs());
}

// A pass's diff as the GUI shows it: the snapshots before and after laid out on two canvases.
void measurePassDiff(const char *title, const ir::Model &model)
{
    auto pipeline = passes::presetPipeline(2);
    passes::PassManagerOptions options;
    options.snapshots = true;
    QElapsedTimer timer;
    timer.start();
    auto compiled = passes::runPipeline(model, *pipeline, options);
    if (!compiled)
        return;
    const double compileMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    double worst = 0;
    std::string worstPass;
    for (std::size_t k = 0; k < compiled->passes.size(); ++k) {
        if (!compiled->passes[k].changed)
            continue;
        const auto &before = k == 0 ? compiled->input : compiled->passes[k - 1].snapshot;
        const auto &after = compiled->passes[k].snapshot;
        views::GraphCanvas left, right;
        left.resize(800, 900);
        right.resize(800, 900);
        QSignalSpy leftReady(&left, &views::GraphCanvas::sceneReady), rightReady(&right, &views::GraphCanvas::sceneReady);
        timer.restart();
        left.setGraph(before.get(), before->mainGraph());
        right.setGraph(after.get(), after->mainGraph());
        if ((leftReady.isEmpty() && !leftReady.wait(60000)) || (rightReady.isEmpty() && !rightReady.wait(60000)))
            return;
        left.repaint();
        right.repaint();
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        if (ms > worst) {
            worst = ms;
            worstPass = compiled->passes[k].name;
        }
    }
    std::printf("%-28s -O2 with snapshots %.1f ms; slowest step diff on screen %.1f ms (%s)\n", title, compileMs, worst,
                worstPass.c_str());
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    {
        QElapsedTimer timer;
        timer.start();
        const std::string bytes = test::canonicalBytes(test::syntheticModel(1000, 100));
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", {});
        if (!loaded)
            return 1;
        std::printf("synthetic 1000×100 loaded in %.0f ms\n", static_cast<double>(timer.nsecsElapsed()) / 1e6);
        measure("synthetic 100k", *loaded->model);
    }
    for (int i = 1; i < argc; ++i) {
        auto loaded = ir::loadModelFile(argv[i]);
        if (!loaded) {
            std::fprintf(stderr, "%s: %s\n", argv[i], loaded.error().format().c_str());
            return 2;
        }
        measure(argv[i], *loaded->model);
        measurePassDiff(argv[i], *loaded->model);
    }
    return 0;
}
