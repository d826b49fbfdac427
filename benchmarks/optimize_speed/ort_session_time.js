// Times ONNX Runtime's session creation for one model at 'disabled' and 'all' optimization levels
// (the difference is its graph optimizer's cost). Usage: node ort_session_time.js MODEL
const ort = require('onnxruntime-node');
(async () => {
  for (const level of ['disabled', 'all']) {
    const t0 = process.hrtime.bigint();
    await ort.InferenceSession.create(process.argv[2], { graphOptimizationLevel: level, intraOpNumThreads: 1 });
    console.log(`ORT session creation at '${level}': ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2)} s`);
  }
})().catch((e) => { console.error(String(e)); process.exit(1); });
