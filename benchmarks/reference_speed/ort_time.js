// Times ONNX Runtime (onnxruntime-node) on one model: usage node ort_time.js MODEL INPUT.pb LEVEL RUNS
// LEVEL is 'disabled' or 'all'; prints one JSON line with min/median latency in ms. 2 intra-op threads.
const ort = require('onnxruntime-node');
const fs = require('fs');

// A raw-data float TensorProto: dims (field 1), data_type (2), raw_data (9). Enough for our inputs.
function readTensorProto(path) {
  const b = fs.readFileSync(path);
  let at = 0;
  const varint = () => { let v = 0, s = 0, c; do { c = b[at++]; v += (c & 0x7f) * 2 ** s; s += 7; } while (c & 0x80); return v; };
  const dims = []; let raw = null;
  while (at < b.length) {
    const tag = varint(), field = tag >>> 3, wire = tag & 7;
    if (wire === 0) { const v = varint(); if (field === 1) dims.push(v); }
    else if (wire === 2) {
      const len = varint();
      if (field === 1) { const end = at + len; while (at < end) dims.push(varint()); }
      else if (field === 9) raw = b.subarray(at, at + len);
      at += field === 1 ? 0 : len;
    } else if (wire === 5) at += 4; else if (wire === 1) at += 8;
  }
  const copy = new Float32Array(raw.length / 4);
  new Uint8Array(copy.buffer).set(raw);
  return new ort.Tensor('float32', copy, dims);
}

(async () => {
  const [model, input, level, runs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: level, intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential' });
  const feeds = { [session.inputNames[0]]: readTensorProto(input) };
  await session.run(feeds); // warm-up
  const times = [];
  for (let i = 0; i < Number(runs); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ level, min_ms: times[0], median_ms: times[Math.floor(times.length / 2)] }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
