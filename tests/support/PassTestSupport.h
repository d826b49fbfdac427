// Helpers for pass tests: run a pipeline with verify-each and the numeric check, and inspect the result.
#pragma once

#include "passes/PassManager.h"

#include <string>

namespace portolan::test {

/// Runs `pipeline` on `model` with verify-each and the numeric check on (atol = rtol = 1e-5);
/// fails the test (QFAIL-style: returns nullopt after QTest::qFail) when the pipeline errors.
std::optional<passes::CompileResult> runChecked(const ir::Model &model, const std::string &pipeline,
                                                passes::PassManagerOptions options = {});

/// A model from ONNX text syntax; fails the test (and returns nullptr) when it does not load.
std::unique_ptr<ir::Model> modelFromText(const std::string &text);

/// Live nodes of the main graph by op type ("Conv", "ai.portolan::FusedConv"), for assertions.
std::map<std::string, int> opHistogram(const ir::Model &model);

/// True when every changed pass of `result` ran its numeric check, compared at least one output and
/// stayed within tolerance; otherwise prints why (qWarning) and returns false.
bool numericsHeld(const passes::CompileResult &result);

/// The reasons the named pass gave for declining (its match failures), joined by "; ".
std::string failureReasons(const passes::CompileResult &result, const std::string &pass);

} // namespace portolan::test
