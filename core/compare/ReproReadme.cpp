// The repro's README (see ReproReadme.h).
#include "compare/ReproReadme.h"

#include "support/NumberText.h"

namespace portolan::compare {

using support::shortNumber;

std::string reproReadme(const Repro &repro, const ReproStory &story)
{
    const std::string &model = story.model, &node = story.node, &op = story.opType, &runB = story.runB,
                      &pipeline = story.pipeline, &command = story.command, &verdict = story.verdict;
    const Tolerance &tolerance = story.tolerance;
    std::string text = "# Repro: " + node + " (" + op + ") from " + model + "\n\n";
    text += "Cut out by " + story.tool + " (Portolan " + std::string(PORTOLAN_VERSION) + "): ";
    std::string nodes;
    for (const std::string &n : repro.nodes)
        nodes += (nodes.empty() ? "" : ", ") + n;
    text += std::to_string(repro.nodes.size()) + " node(s) (" + nodes + "), fed with the tensors run " + runB +
            (pipeline.empty() ? "" : " (after " + pipeline + ")") + " gave them.";
    if (repro.nodesBeforeShrink > 1)
        text += " Shrunk from the " + std::to_string(repro.nodesBeforeShrink) + " node(s) asked for, in " +
                std::to_string(repro.shrinkChecks) + " candidate run(s), to the smallest cut that still fails.";
    if (!command.empty())
        text += "\n\nThe command that made it:\n\n    " + command;
    text += "\n\n## What fails\n\n";
    text += "Run " + runB + (repro.standalone ? " on this model alone" : " (in its run of the whole model)") +
            " against the reference interpreter on the very same inputs (`test_data_set_0/output_K.pb`), at atol " +
            shortNumber(tolerance.atol) + ", rtol " + shortNumber(tolerance.rtol) + ":\n\n";
    for (std::size_t k = 0; k < repro.metrics.size(); ++k) {
        const TensorMetrics &m = repro.metrics[k];
        text += "- `" + repro.expected[k].first + "`: " + (m.passed ? "within tolerance" : "OUT OF TOLERANCE") + ", max abs error " +
                shortNumber(m.maxAbs) + " (" + shortNumber(normalizedError(m)) +
                " of its scale), cosine " + shortNumber(m.cosine) + ", SNR " + shortNumber(m.snrDb) + " dB\n";
    }
    if (!verdict.empty())
        text += "\nIn the whole model, re-run alone on the reference kernel: " + verdict + ".\n";
    text += "\n## Run it\n\n- `portolan conform .` runs the reference interpreter against `output_K.pb`.\n"
            "- `portolan compare model.onnx --inputs test_data_set_0 --b " + runB + " -O0 --atol " + shortNumber(tolerance.atol) +
            " --rtol " + shortNumber(tolerance.rtol) + "` shows the error on its own.\n"
            "- Any runtime: the inputs are `test_data_set_0/input_K.pb` (TensorProto, named), the expected outputs "
            "`output_K.pb`; the weights are embedded in `model.onnx`.\n";
    text += "\n## Versions\n\nPortolan " + std::string(PORTOLAN_VERSION) + ", ONNX IR " + std::to_string(repro.model.ir_version()) +
            ", opsets:";
    for (const auto &o : repro.model.opset_import())
        text += " " + (o.domain().empty() ? std::string("ai.onnx") : o.domain()) + " " + std::to_string(o.version());
    return text + "\n";
}

} // namespace portolan::compare
