// Saves the model ONNX Runtime (onnxruntime-node) runs after its 'all' graph optimizations (CPU EP).
// Usage: node ort_optimize.js MODEL OUT.onnx
const ort = require('onnxruntime-node');

(async () => {
  const [model, out] = process.argv.slice(2);
  await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all', optimizedModelFilePath: out, intraOpNumThreads: 1 });
})().catch((e) => { console.error(String(e)); process.exit(1); });
