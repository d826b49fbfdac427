// ONNX Runtime as Portolan's external executor, through onnxruntime-node:
//   portolan compare MODEL --b 'external:node scripts/external/onnxruntime-node.js {model} {inputs} {outputs}'
// NODE_PATH must reach onnxruntime-node (benchmarks/ort_install.sh installs it into
// benchmarks/.cache/node_modules). Reads every NAME.npy of {inputs} (names %-escaped, as Portolan
// writes them), runs the model once, and writes each output as {outputs}/NAME.npy.
// PORTOLAN_ORT_LEVEL picks the graph optimization level: disabled, basic, extended or all (default).
//   node onnxruntime-node.js --save-optimized OPTIMIZED MODEL
// writes the model as ONNX Runtime optimizes it at that level (what `--b ort` reads to learn which
// tensors survive its fusions) and runs nothing. Portolan embeds this file and writes it into the
// cache it installs onnxruntime-node in.
const fs = require('fs');
const path = require('path');
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error('onnxruntime-node is not installed where NODE_PATH points (' + (process.env.NODE_PATH || 'unset') +
                '): run benchmarks/ort_install.sh, then NODE_PATH=benchmarks/.cache/node_modules');
  process.exit(3);
}

// NumPy descr codes and ONNX Runtime's tensor types, both ways
const types = [
  ['<f4', 'float32', Float32Array], ['<f8', 'float64', Float64Array], ['<f2', 'float16', Uint16Array],
  ['<i8', 'int64', BigInt64Array], ['<i4', 'int32', Int32Array], ['<i2', 'int16', Int16Array], ['|i1', 'int8', Int8Array],
  ['<u8', 'uint64', BigUint64Array], ['<u4', 'uint32', Uint32Array], ['<u2', 'uint16', Uint16Array], ['|u1', 'uint8', Uint8Array],
  ['|b1', 'bool', Uint8Array],
];

// Fixed-width unicode ('<U5': 5 UTF-32 code units a string, NUL-padded) for string tensors
function readStrings(raw, width, dims) {
  const values = [];
  for (let at = 0; at + 4 * width <= raw.length; at += 4 * width) {
    let s = '';
    for (let k = 0; k < width; ++k) {
      const c = raw.readUInt32LE(at + 4 * k);
      if (c === 0) break;
      s += String.fromCodePoint(c);
    }
    values.push(s);
  }
  return new ort.Tensor('string', values, dims);
}

function writeStrings(tensor) {
  const points = tensor.data.map((s) => Array.from(s, (c) => c.codePointAt(0)));
  const width = Math.max(1, ...points.map((p) => p.length));
  const data = Buffer.alloc(4 * width * points.length);
  points.forEach((p, i) => p.forEach((c, k) => data.writeUInt32LE(c, 4 * (i * width + k))));
  return ['<U' + width, data];
}

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const headerLength = bytes[6] === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = (bytes[6] === 1 ? 10 : 12) + headerLength;
  const header = bytes.toString('latin1', start - headerLength, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1].replace(/^=/, '<');
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((d) => d.trim()).filter((d) => d).map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran-order data');
  const unicode = /^<U(\d+)$/.exec(descr);
  const type = types.find((t) => t[0] === descr || (t[0][0] === '|' && descr === '<' + t[0].slice(1)));
  if (!type && !unicode) throw new Error(file + ': element type ' + descr + ' is not supported');
  const raw = bytes.subarray(start);
  if (unicode) return readStrings(raw, Number(unicode[1]), dims);
  const data = new type[2](raw.length / type[2].BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(raw);
  return new ort.Tensor(type[1], type[1] === 'bool' ? Uint8Array.from(data, (v) => (v ? 1 : 0)) : data, dims);
}

function writeNpy(file, tensor) {
  const strings = tensor.type === 'string' ? writeStrings(tensor) : null;
  const type = strings ? [strings[0]] : types.find((t) => t[1] === tensor.type);
  if (!type) throw new Error('output type ' + tensor.type + ' has no NumPy counterpart');
  const shape = tensor.dims.map((d) => d + ', ').join('');
  let header = "{'descr': '" + type[0] + "', 'fortran_order': False, 'shape': (" + shape + '), }';
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix.writeUInt16LE(header.length, 8);
  const data = strings ? strings[1] : tensor.type === 'bool' ? Uint8Array.from(tensor.data, (v) => (v ? 1 : 0)) : tensor.data;
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

(async () => {
  const level = process.env.PORTOLAN_ORT_LEVEL || 'all';
  if (process.argv[2] === '--save-optimized') {
    const [optimized, model] = process.argv.slice(3);
    if (!model) throw new Error('usage: node onnxruntime-node.js --save-optimized OPTIMIZED MODEL');
    await ort.InferenceSession.create(model, { graphOptimizationLevel: level, optimizedModelFilePath: optimized });
    return;
  }
  const [model, inputs, outputs] = process.argv.slice(2);
  if (!outputs) throw new Error('usage: node onnxruntime-node.js MODEL INPUTS_DIR OUTPUTS_DIR');
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: level, intraOpNumThreads: 2, interOpNumThreads: 1 });
  const feeds = {};
  for (const file of fs.readdirSync(inputs))
    if (file.endsWith('.npy')) feeds[decodeURIComponent(file.slice(0, -4))] = readNpy(path.join(inputs, file));
  for (const name of session.inputNames)
    if (!(name in feeds)) throw new Error('no input file for ' + name + ' in ' + inputs);
  const results = await session.run(feeds);
  for (const [name, tensor] of Object.entries(results))
    writeNpy(path.join(outputs, encodeURIComponent(name).replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()) + '.npy'), tensor);
})().catch((e) => { console.error(String(e && e.stack ? e.stack : e)); process.exit(1); });
