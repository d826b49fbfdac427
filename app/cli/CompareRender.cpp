// Text output of compare and repro (see CompareRender.h).
#include "cli/CompareRender.h"

#include "support/NumberText.h"
#include "support/TextColumn.h"

#include <algorithm>
#include <cstdio>

namespace portolan::cli {

namespace {

void printTensor(const compare::ComparedTensor &t)
{
    const compare::TensorMetrics &m = t.metrics;
    if (!m.mismatch.empty()) {
        std::printf("    %s %s\n", support::tailColumn(t.name, 40).c_str(), m.mismatch.c_str());
        return;
    }
    std::printf("    %s %-10s max abs %-8s (%-8s of scale)  cos %.6f  SNR %-6s dB", support::tailColumn(t.name, 40).c_str(),
                compare::verdictName(t.verdict), support::shortNumber(m.maxAbs).c_str(),
                support::shortNumber(compare::normalizedError(t)).c_str(), m.cosine, support::shortNumber(m.snrDb).c_str());
    if (m.top1)
        std::printf("  top-1 %.3f top-5 %.3f", *m.top1, *m.top5);
    if (m.actualNans || m.actualInfs)
        std::printf("  (b: %lld NaN, %lld Inf)", static_cast<long long>(m.actualNans), static_cast<long long>(m.actualInfs));
    std::printf("\n");
    if (t.failed())
        std::printf("    %-40s %s\n", "", t.verdictWhy.c_str());
}

} // namespace

void printComparison(const session::ComparisonOutcome &outcome, bool everyTensor)
{
    const compare::ComparisonResult &result = outcome.result;
    const std::string compiledAfter = outcome.pipelineLabel.empty() ? "" : " (compiled after " + outcome.pipelineLabel + ")";
    std::printf("Compared %s with %s on %s%s: %zu tensors aligned, %zu compared (%s)\n", result.labelA.c_str(),
                result.labelB.c_str(), outcome.loaded->sourcePath.c_str(), compiledAfter.c_str(), result.alignedValues,
                result.tensors.size(), outcome.request.toleranceText().c_str());
    std::printf("  outputs:\n");
    for (const compare::ComparedTensor *t : result.outputs())
        printTensor(*t);
    const compare::ComparedTensor *first = outcome.firstDivergence;
    const auto &suspects = outcome.suspects;
    if (first)
        std::printf("  first divergence: %s, produced by %s: a bug while its inputs are at most drift\n",
                    first->name.c_str(), compare::producerWithOp(first->node, first->opType).c_str());
    else if (std::any_of(suspects.begin(), suspects.end(),
                         [](const compare::Suspect &s) { return s.inputsUnseen && s.tensor->verdict == compare::Verdict::Bug; }))
        std::printf("  first divergence: unknown (a bug's inputs were not compared: import its intermediates too)\n");
    else
        std::printf("  first divergence: none (no bug starts at a node: every error is within tolerance or drift)\n");
    const auto kernelChecks = compare::checksBySuspect(suspects, outcome.kernelChecks);
    if (!suspects.empty()) {
        std::printf("  suspects:\n");
        for (const compare::Suspect &s : suspects) {
            std::printf("    %s %-22s error %-8s  %s\n", support::tailColumn(s.tensor->node, 40).c_str(), s.tensor->opType.c_str(),
                        support::shortNumber(s.error).c_str(), s.why.c_str());
            if (const auto it = kernelChecks.find(&s); it != kernelChecks.end())
                std::printf("    %-40s   re-run alone: %s\n", "", it->second.explanation.c_str());
        }
    }
    if (everyTensor) {
        std::printf("  every tensor, in the order %s produced them:\n", result.labelB.c_str());
        for (const compare::ComparedTensor &t : result.tensors)
            printTensor(t);
    }
    for (const std::string &n : result.notCompared)
        std::printf("  not compared: %s\n", n.c_str());
    if (!outcome.unknownImported.empty()) {
        std::printf("  imported tensors no value of the model is named after (%zu):", outcome.unknownImported.size());
        for (const std::string &n : outcome.unknownImported)
            std::printf(" %s", n.c_str());
        std::printf("\n");
    }
    std::printf("  runs: %s %.3f s, %s %.3f s; held %.2f MiB of %s's tensors at most, spilled %.2f MiB\n", result.labelA.c_str(),
                result.secondsA, result.labelB.c_str(), result.secondsB, static_cast<double>(result.peakHeldBytes) / (1 << 20),
                result.labelA.c_str(), static_cast<double>(result.spilledBytes) / (1 << 20));
    std::size_t drifting = 0, bugs = 0;
    for (const compare::ComparedTensor &t : result.tensors) {
        drifting += t.verdict == compare::Verdict::Drift;
        bugs += t.verdict == compare::Verdict::Bug;
    }
    std::printf("  verdicts: %zu equivalent, %zu drift, %zu bug\n", result.tensors.size() - drifting - bugs, drifting, bugs);
    const compare::Verdict outputs = result.outputsVerdict();
    std::printf("%s\n", result.outputsPassed()                     ? "Outputs within tolerance."
                         : outputs == compare::Verdict::Drift ? "Outputs OUT OF TOLERANCE, as drift: no more than rounding explains."
                                                              : "Outputs OUT OF TOLERANCE: a bug.");
}

void printReproWritten(const session::ReproWritten &written, const std::string &dir, const std::string &runB)
{
    const compare::Repro &repro = written.repro;
    std::string shrunk;
    if (repro.nodesBeforeShrink > 1)
        shrunk = ", shrunk from " + std::to_string(repro.nodesBeforeShrink) + " in " + std::to_string(repro.shrinkChecks) + " runs";
    std::printf("Wrote a repro around %s (%s): %zu node(s)%s, to %s: %s, run %s is %s the reference there\n", written.node.c_str(),
                written.opType.c_str(), repro.nodes.size(), shrunk.c_str(), dir.c_str(),
                repro.standalone ? "on the repro alone" : "in its whole-model run", runB.c_str(),
                repro.reproduces() ? "OUT OF TOLERANCE against" : "within tolerance of");
}

} // namespace portolan::cli
