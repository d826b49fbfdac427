// The precision options of run, compare and bisect-precision: --precision, --keep-fp32 and the int8
// calibration options, as the request's LoweringSettings (the workbench resolves them into a policy).
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

#include "session/SideSpec.h"

#include <vector>

namespace portolan::cli {

struct PrecisionOptions {
    QCommandLineOption precision{"precision", "cpu: fp32 (the default), fp16 or bf16 (values rounded at node boundaries, "
                                              "fp32 accumulation), or int8 (QDQ Conv/MatMul/Gemm; needs calibration).",
                                 "TYPE", "fp32"};
    QCommandLineOption keepFp32{"keep-fp32", "cpu, cuda:fp16|bf16: keep matching nodes at fp32: a node-name regex, op:TYPE[,TYPE…] or "
                                             "group:NAME (normalization, softmax, attention, activation, elementwise, "
                                             "reduction, pooling, conv, matmul). Repeatable.",
                                "RULE"};
    QCommandLineOption calibration{"calibration", "int8: calibrate on DIR (its input_K.pb files, or each subfolder's) or "
                                                  "on N seeded random batches.",
                                   "DIR|random:N[:SEED]"};
    QCommandLineOption calibrationMethod{"calibration-method", "int8: minmax or percentile[:P] (default percentile:99.99).",
                                         "METHOD", "percentile:99.99"};
    QCommandLineOption calibrationTable{"calibration-table", "int8: read the activation ranges from FILE instead of "
                                                             "calibrating.",
                                        "FILE"};
    QCommandLineOption saveCalibration{"save-calibration", "int8: write the calibration table to FILE (an existing "
                                                           "file needs --force).",
                                       "FILE"};

    void addTo(QCommandLineParser &parser) const;
    bool anySet(const QCommandLineParser &parser) const;
    /// Whether an option other than --keep-fp32 is given (the CUDA executor takes that one alone).
    bool anyButKeepSet(const QCommandLineParser &parser) const;
};

/// The lowering options as a request carries them. `int8` says whether a side runs at int8: it
/// then needs --calibration or --calibration-table, and without it the calibration options are an
/// error. `force` lets --save-calibration replace a file.
support::Expected<session::LoweringSettings> loweringSettings(const QCommandLineParser &parser, const PrecisionOptions &options,
                                                              bool int8, bool force);

/// The --keep-fp32 rules, parsed; the error quotes a malformed one.
support::Expected<std::vector<runtime::KeepFp32Rule>> keepFp32Rules(const QCommandLineParser &parser, const PrecisionOptions &options);

} // namespace portolan::cli
