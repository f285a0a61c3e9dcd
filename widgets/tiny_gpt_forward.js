// The tiny reasoner's forward pass in plain JavaScript, over the same fp16 checkpoint Python
// loads (data/tiny_reasoner.json + .bin). It mirrors code/tiny_gpt.py and is tested against it
// in Chromium (tests/test_widgets_tiny_reasoner.py: logits within 1e-3):
//
//   buildTinyGPT / loadTinyGPT   tiny_gpt.load_checkpoint   (refuses a bad or mismatched file)
//   encodePrompt                 tiny_gpt.encode_prompts    (same errors for bad prompts)
//   forwardLogits                TinyGPT.forward            (logits at every position)
//   forwardRows / forwardToken   TinyGPT.forward with a KVCache, one token per chain
//   extractAnswer                reasoning.extract_answer, on the tiny reasoner's alphabet
//
// One token through the model, for width C, 4C-wide MLP and L layers:
//   x = E[token] + P[pos];  per layer: x += W_o attn(LN1 x);  x += W_2 gelu(W_1 LN2 x)
//   logits = E . LN_f(x)     (the output head is the token embedding, tied)
// The sampler draws with a seeded PRNG (mulberry32) so a click is reproducible.
import {erf} from "./special.js";

export const CHECKPOINT_FORMAT = "tiny-gpt-fp16-v1";
const PROMPT_CHARS = "0123456789+-=;#";

// ---------------------------------------------------------------- fp16 and the checkpoint

/** IEEE 754 half-precision bit patterns (Uint16Array) to a Float32Array of their values. */
export function decodeFloat16(bits) {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i];
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) out[i] = sign * frac * 2 ** -24; // zero and subnormals
    else if (exp === 31) out[i] = frac ? NaN : sign * Infinity;
    else out[i] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return out;
}

/** Every tensor name and shape a config implies, in TinyGPT.state_dict() order. */
export function expectedTensors(config) {
  const {vocab_size: V, context: T, n_layer: L, n_embd: C} = config;
  const shapes = [["wte.weight", [V, C]], ["wpe.weight", [T, C]]];
  for (let l = 0; l < L; l++) {
    const p = `blocks.${l}.`;
    shapes.push(
      [`${p}ln1.weight`, [C]], [`${p}ln1.bias`, [C]],
      [`${p}attn.qkv.weight`, [3 * C, C]], [`${p}attn.qkv.bias`, [3 * C]],
      [`${p}attn.proj.weight`, [C, C]], [`${p}attn.proj.bias`, [C]],
      [`${p}ln2.weight`, [C]], [`${p}ln2.bias`, [C]],
      [`${p}fc.weight`, [4 * C, C]], [`${p}fc.bias`, [4 * C]],
      [`${p}fc_proj.weight`, [C, 4 * C]], [`${p}fc_proj.bias`, [C]]
    );
  }
  shapes.push(["ln_f.weight", [C]], ["ln_f.bias", [C]]);
  return shapes;
}

function fail(message) {
  throw new Error(`tiny reasoner checkpoint: ${message}`);
}

/**
 * Check a checkpoint's JSON record against its .bin bytes (an ArrayBuffer) and decode the
 * weights. Throws, naming the problem, on a wrong format, config, vocabulary, size, tensor
 * name, shape or offset, or a non-finite weight; nothing is returned half-built.
 */
export function buildTinyGPT(meta, buffer) {
  if (!meta || meta.format !== CHECKPOINT_FORMAT) fail(`not in the ${CHECKPOINT_FORMAT} format`);
  const config = meta.config ?? {};
  const keys = ["vocab_size", "context", "n_layer", "n_embd", "n_head"];
  for (const k of keys) {
    if (!Number.isInteger(config[k]) || config[k] < 1) fail(`config.${k} must be a positive int`);
  }
  if (Object.keys(config).length !== keys.length) fail(`config must have exactly ${keys}`);
  if (config.n_embd % config.n_head) fail("n_embd must be divisible by n_head");
  if (typeof meta.vocab !== "string" || meta.vocab.length !== config.vocab_size) {
    fail("the vocabulary does not match config.vocab_size");
  }
  if (meta.dtype !== "float16" || meta.byteorder !== "little") fail("tensors must be little-endian float16");
  if (buffer.byteLength !== meta.bytes) {
    fail(`the .bin is ${buffer.byteLength} bytes, the record says ${meta.bytes} (truncated or wrong file)`);
  }
  const expected = expectedTensors(config);
  const index = meta.tensors ?? [];
  if (index.length !== expected.length) fail(`${index.length} tensors listed, the config needs ${expected.length}`);
  const view = new DataView(buffer);
  const weights = {};
  let offset = 0;
  expected.forEach(([name, shape]) => {
    const entry = index.find((e) => e.name === name);
    if (!entry) fail(`tensor ${name} is missing`);
    if (JSON.stringify(entry.shape) !== JSON.stringify(shape)) {
      fail(`tensor ${name} has shape [${entry.shape}], the config needs [${shape}]`);
    }
    if (entry.offset !== offset) fail(`tensor ${name} starts at byte ${entry.offset}, expected ${offset}`);
    const count = shape.reduce((a, b) => a * b, 1);
    const bits = new Uint16Array(count);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(offset + 2 * i, true);
    const values = decodeFloat16(bits);
    if (!values.every(Number.isFinite)) fail(`tensor ${name} holds non-finite values`);
    weights[name] = values;
    offset += 2 * count;
  });
  if (offset !== buffer.byteLength) fail(`the index covers ${offset} of ${buffer.byteLength} bytes`);
  const vocab = meta.vocab;
  const special = meta.special ?? {pad: "_", bos: "^", eos: "$"};
  const layers = [];
  for (let l = 0; l < config.n_layer; l++) {
    const w = (s) => weights[`blocks.${l}.${s}`];
    layers.push({
      ln1w: w("ln1.weight"), ln1b: w("ln1.bias"), qkvW: w("attn.qkv.weight"), qkvB: w("attn.qkv.bias"),
      projW: w("attn.proj.weight"), projB: w("attn.proj.bias"), ln2w: w("ln2.weight"), ln2b: w("ln2.bias"),
      fcW: w("fc.weight"), fcB: w("fc.bias"), fc2W: w("fc_proj.weight"), fc2B: w("fc_proj.bias")
    });
  }
  return {
    config, vocab, meta, weights, layers,
    pad: vocab.indexOf(special.pad), bos: vocab.indexOf(special.bos), eos: vocab.indexOf(special.eos),
    zeroBias: new Float32Array(config.vocab_size)
  };
}

async function sha256Hex(buffer) {
  if (!globalThis.crypto?.subtle) return null; // insecure context: the size check still applies
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** buildTinyGPT after checking the bytes against the recorded SHA-256 (as load_checkpoint). */
export async function checkAndBuildTinyGPT(meta, buffer) {
  if (buffer.byteLength === meta?.bytes) {
    const digest = await sha256Hex(buffer);
    if (digest !== null && digest !== meta.sha256) fail(`${meta.bin} does not match its SHA-256 (corrupted)`);
  }
  return buildTinyGPT(meta, buffer);
}

/** Fetch a checkpoint's JSON (a URL) and its .bin beside it; check and build the model. */
export async function loadTinyGPT(jsonUrl) {
  // globalThis.location in a Web Worker (the live sampler's), which has no document.
  const url = new URL(jsonUrl, globalThis.document?.baseURI ?? globalThis.location?.href);
  const response = await fetch(url);
  if (!response.ok) fail(`cannot fetch ${url} (${response.status})`);
  const meta = await response.json();
  if (typeof meta.bin !== "string" || meta.bin.includes("/")) fail("bad .bin file name");
  const binResponse = await fetch(new URL(meta.bin, url));
  if (!binResponse.ok) fail(`cannot fetch ${meta.bin} (${binResponse.status})`);
  return checkAndBuildTinyGPT(meta, await binResponse.arrayBuffer());
}

// ---------------------------------------------------------------- tokens

/** [BOS, ...ids] of a prompt; throws like tiny_gpt.encode_prompts on a bad prompt. */
export function encodePrompt(model, prompt) {
  if (typeof prompt !== "string") throw new TypeError(`prompt must be a string, got ${typeof prompt}`);
  if (prompt.length === 0) throw new Error("prompt is empty");
  const bad = [...new Set([...prompt].filter((ch) => !PROMPT_CHARS.includes(ch)))].sort();
  if (bad.length) {
    throw new Error(`prompt ${JSON.stringify(prompt)} has characters outside the vocabulary: ${bad.join(" ")}`);
  }
  if (prompt.length + 1 >= model.config.context) {
    throw new Error(`prompt is ${prompt.length} characters; with the start token it must be shorter ` +
      `than the context of ${model.config.context}`);
  }
  return [model.bos, ...[...prompt].map((ch) => model.vocab.indexOf(ch))];
}

// ---------------------------------------------------------------- the forward pass
//
// Several chains are decoded in lockstep: each matrix is read once per step and applied to
// every active chain (four at a time), which is about twice as fast in plain JavaScript as
// one chain after another. A cache holds B rows; row r has its own length (position).

// out[j] = b[j] + sum_i W[j, i] x[i] for one row; W row-major (out, in) as torch.nn.Linear
// stores it. Two outputs at a time, four products each per iteration (eight running sums):
// every input is loaded once for two outputs.
function linear1(W, b, X, x0, out, o0, nOut, nIn) {
  const n4 = nIn - (nIn % 4);
  let j = 0;
  for (; j + 1 < nOut; j += 2) {
    let r = j * nIn, q = r + nIn;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    let i = 0;
    for (; i < n4; i += 4, r += 4, q += 4) {
      const a0 = X[x0 + i], a1 = X[x0 + i + 1], a2 = X[x0 + i + 2], a3 = X[x0 + i + 3];
      s0 += W[r] * a0; s1 += W[r + 1] * a1; s2 += W[r + 2] * a2; s3 += W[r + 3] * a3;
      t0 += W[q] * a0; t1 += W[q + 1] * a1; t2 += W[q + 2] * a2; t3 += W[q + 3] * a3;
    }
    for (; i < nIn; i++, r++, q++) {
      s0 += W[r] * X[x0 + i];
      t0 += W[q] * X[x0 + i];
    }
    out[o0 + j] = b[j] + s0 + s1 + s2 + s3;
    out[o0 + j + 1] = b[j + 1] + t0 + t1 + t2 + t3;
  }
  for (; j < nOut; j++) { // an odd last output
    let r = j * nIn;
    let s0 = 0;
    for (let i = 0; i < nIn; i++, r++) s0 += W[r] * X[x0 + i];
    out[o0 + j] = b[j] + s0;
  }
}

// The same for four rows at once, two outputs at a time: each weight is loaded once and used
// four times, each input once and used twice (eight running sums, all in registers).
function linear4(W, b, X, x0, out, o0, nOut, nIn) {
  const x1 = x0 + nIn, x2 = x1 + nIn, x3 = x2 + nIn;
  const o1 = o0 + nOut, o2 = o1 + nOut, o3 = o2 + nOut;
  let j = 0;
  for (; j + 1 < nOut; j += 2) {
    let r = j * nIn, q = r + nIn;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (let i = 0; i < nIn; i++, r++, q++) {
      const w = W[r], v = W[q];
      const a0 = X[x0 + i], a1 = X[x1 + i], a2 = X[x2 + i], a3 = X[x3 + i];
      s0 += w * a0; s1 += w * a1; s2 += w * a2; s3 += w * a3;
      t0 += v * a0; t1 += v * a1; t2 += v * a2; t3 += v * a3;
    }
    out[o0 + j] = b[j] + s0; out[o1 + j] = b[j] + s1; out[o2 + j] = b[j] + s2; out[o3 + j] = b[j] + s3;
    const c = b[j + 1];
    out[o0 + j + 1] = c + t0; out[o1 + j + 1] = c + t1; out[o2 + j + 1] = c + t2; out[o3 + j + 1] = c + t3;
  }
  for (; j < nOut; j++) { // an odd last output
    let r = j * nIn;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let i = 0; i < nIn; i++, r++) {
      const w = W[r];
      s0 += w * X[x0 + i]; s1 += w * X[x1 + i]; s2 += w * X[x2 + i]; s3 += w * X[x3 + i];
    }
    out[o0 + j] = b[j] + s0; out[o1 + j] = b[j] + s1; out[o2 + j] = b[j] + s2; out[o3 + j] = b[j] + s3;
  }
}

// Y = X W^T + b for R rows of X (R x nIn) into out (R x nOut).
function linear(W, b, X, out, nOut, nIn, R) {
  let row = 0;
  for (; row + 3 < R; row += 4) linear4(W, b, X, row * nIn, out, row * nOut, nOut, nIn);
  for (; row < R; row++) linear1(W, b, X, row * nIn, out, row * nOut, nOut, nIn);
}

// LayerNorm of each row: (x - mean) / sqrt(var + 1e-5) * w + b, biased variance as in torch.
// The trainer's tape (tiny_gpt_backward.js) passes `means` and `rstds` to keep each row's
// statistics for the backward pass; the sampler passes neither.
export function layerNorm(X, w, b, out, n, R, means = null, rstds = null) {
  for (let row = 0; row < R; row++) {
    const o = row * n;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += X[o + i];
    mean /= n;
    let variance = 0;
    for (let i = 0; i < n; i++) variance += (X[o + i] - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / n + 1e-5);
    if (means) {
      means[row] = mean;
      rstds[row] = inv;
    }
    for (let i = 0; i < n; i++) out[o + i] = (X[o + i] - mean) * inv * w[i] + b[i];
  }
}

/** gelu(x) = x/2 (1 + erf(x / sqrt 2)), torch's exact GELU. */
export function gelu(x) {
  return 0.5 * x * (1 + erf(x * Math.SQRT1_2));
}

// Causal self-attention of one query at position `pos` over the row's cached positions
// 0..pos, head by head: y_h = sum_t softmax_t(q_h . k_h[t] / sqrt(d_h)) v_h[t].
function attend(qkv, q0, keys, values, c0, y, y0, att, pos, C, H) {
  const hd = C / H;
  const scale = 1 / Math.sqrt(hd);
  for (let head = 0; head < H; head++) {
    const q = q0 + head * hd;
    let max = -Infinity;
    for (let t = 0; t <= pos; t++) {
      let s = 0;
      const k = c0 + t * C + head * hd;
      for (let i = 0; i < hd; i++) s += qkv[q + i] * keys[k + i];
      s *= scale;
      att[t] = s;
      if (s > max) max = s;
    }
    let total = 0;
    for (let t = 0; t <= pos; t++) {
      const e = Math.exp(att[t] - max);
      att[t] = e;
      total += e;
    }
    const yh = y0 + head * hd;
    for (let i = 0; i < hd; i++) y[yh + i] = 0;
    for (let t = 0; t <= pos; t++) {
      const w = att[t] / total;
      const v = c0 + t * C + head * hd;
      for (let i = 0; i < hd; i++) y[yh + i] += w * values[v + i];
    }
  }
}

/** An empty key/value cache for `rows` chains: per layer, rows x context x width. */
export function newCache(model, rows = 1) {
  const {context, n_embd: C, n_layer: L} = model.config;
  const buffers = () => Array.from({length: L}, () => new Float32Array(rows * context * C));
  return {rows, lengths: new Int32Array(rows), keys: buffers(), values: buffers()};
}

/** Copy cache row `from` (keys, values, length) into each row of `to` (after a shared prompt). */
export function copyCacheRow(model, cache, from, to) {
  const size = model.config.context * model.config.n_embd;
  for (let l = 0; l < cache.keys.length; l++) {
    const k = cache.keys[l].subarray(from * size, from * size + cache.lengths[from] * model.config.n_embd);
    const v = cache.values[l].subarray(from * size, from * size + cache.lengths[from] * model.config.n_embd);
    for (const row of to) {
      cache.keys[l].set(k, row * size);
      cache.values[l].set(v, row * size);
    }
  }
  for (const row of to) cache.lengths[row] = cache.lengths[from];
}

function scratch(model, R) {
  model._scratch ??= new Map();
  if (!model._scratch.has(R)) {
    const C = model.config.n_embd;
    model._scratch.set(R, {
      x: new Float64Array(R * C), h: new Float64Array(R * C), qkv: new Float64Array(R * 3 * C),
      y: new Float64Array(R * C), a: new Float64Array(R * C), f: new Float64Array(R * 4 * C),
      logits: new Float64Array(R * model.config.vocab_size), att: new Float64Array(model.config.context)
    });
  }
  return model._scratch.get(R);
}

/**
 * Run one token through the model for each of the given cache rows (rows[i] gets tokens[i]
 * at position cache.lengths[rows[i]]), append their keys and values, and return the
 * next-token logits of each, an array of Float64Array(vocab_size). `product(W, b, X, out,
 * nOut, nIn, R)` computes out = X W^T + b; the default is this file's float64 loops (chapter 2's
 * sampler), the RL trainer passes a float32 WebAssembly one (rl_trainer_math.js).
 */
export function forwardRows(model, cache, rows, tokens, product = linear) {
  const {context, n_embd: C, n_head: H, vocab_size: V} = model.config;
  const R = rows.length;
  if (R === 0 || tokens.length !== R) throw new Error("rows and tokens must be equal-length, non-empty");
  for (let k = 0; k < R; k++) {
    const token = tokens[k];
    if (!Number.isInteger(token) || token < 0 || token >= V) throw new Error(`token ${token} is not in [0, ${V})`);
    if (cache.lengths[rows[k]] >= context) throw new Error(`position ${cache.lengths[rows[k]]} is past the context of ${context}`);
  }
  const {x, h, qkv, y, a, f, att, logits} = scratch(model, R);
  const wte = model.weights["wte.weight"];
  const wpe = model.weights["wpe.weight"];
  for (let k = 0; k < R; k++) {
    const pos = cache.lengths[rows[k]];
    for (let i = 0; i < C; i++) x[k * C + i] = wte[tokens[k] * C + i] + wpe[pos * C + i];
  }
  const size = context * C;
  for (let l = 0; l < model.layers.length; l++) {
    const layer = model.layers[l];
    const keys = cache.keys[l];
    const values = cache.values[l];
    layerNorm(x, layer.ln1w, layer.ln1b, h, C, R);
    product(layer.qkvW, layer.qkvB, h, qkv, 3 * C, C, R);
    for (let k = 0; k < R; k++) {
      const pos = cache.lengths[rows[k]];
      const c0 = rows[k] * size;
      for (let i = 0; i < C; i++) {
        keys[c0 + pos * C + i] = qkv[k * 3 * C + C + i];
        values[c0 + pos * C + i] = qkv[k * 3 * C + 2 * C + i];
      }
      attend(qkv, k * 3 * C, keys, values, c0, y, k * C, att, pos, C, H);
    }
    product(layer.projW, layer.projB, y, a, C, C, R);
    for (let i = 0; i < R * C; i++) x[i] += a[i];
    layerNorm(x, layer.ln2w, layer.ln2b, h, C, R);
    product(layer.fcW, layer.fcB, h, f, 4 * C, C, R);
    for (let i = 0; i < R * 4 * C; i++) f[i] = gelu(f[i]);
    product(layer.fc2W, layer.fc2B, f, a, C, 4 * C, R);
    for (let i = 0; i < R * C; i++) x[i] += a[i];
  }
  layerNorm(x, model.weights["ln_f.weight"], model.weights["ln_f.bias"], h, C, R);
  product(wte, model.zeroBias, h, logits, V, C, R); // the tied head: no bias
  const out = [];
  for (let k = 0; k < R; k++) {
    cache.lengths[rows[k]] += 1;
    out.push(logits.slice(k * V, (k + 1) * V));
  }
  return out;
}

/** One token through a one-row cache: its next-token logits (Float64Array). */
export function forwardToken(model, cache, token) {
  return forwardRows(model, cache, [0], [token])[0];
}

/** Logits at every position of token ids (plain arrays), as TinyGPT.forward(ids)[0]. */
export function forwardLogits(model, ids) {
  if (!Array.isArray(ids) || ids.length === 0) throw new Error("ids must be a non-empty array");
  if (ids.length > model.config.context) throw new Error(`${ids.length} tokens exceed the context`);
  const cache = newCache(model);
  return ids.map((id) => Array.from(forwardToken(model, cache, id)));
}

/** Logits at every position of "[BOS] prompt", checking the prompt like encodePrompt. */
export function promptLogits(model, prompt) {
  return forwardLogits(model, encodePrompt(model, prompt));
}

// ---------------------------------------------------------------- sampling

/** A small seeded PRNG (mulberry32): rand() in [0, 1). */
export function mulberry32(seed) {
  let s = seed >>> 0;
  return function rand() {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One token from logits, as tiny_gpt.sample draws it: PAD and BOS removed, softmax(z / T)
 * restricted to the top-p nucleus, inverse-CDF over tokens sorted by probability (stable).
 * temperature 0 is greedy. Returns the token id.
 */
export function sampleToken(model, logits, temperature, topP, rand) {
  const V = logits.length;
  const z = Array.from(logits, (v, i) => (i === model.pad || i === model.bos ? -Infinity : v));
  if (temperature === 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (z[i] > z[best]) best = i;
    return best;
  }
  const max = Math.max(...z);
  const p = z.map((v) => Math.exp((v - max) / temperature));
  const order = [...p.keys()].sort((i, j) => p[j] - p[i] || i - j);
  let total = 0;
  const kept = [];
  const sum = p.reduce((s, v) => s + v, 0);
  for (const i of order) {
    if (total / sum >= topP) break;
    kept.push(i);
    total += p[i];
  }
  let u = rand() * total;
  for (const i of kept) {
    u -= p[i];
    if (u < 0) return i;
  }
  return kept[kept.length - 1];
}

/**
 * n chains of one prompt, written in lockstep. The prompt is run once and its cache copied to
 * every row. step() gives every unfinished chain one more token (one draw of rand() each, in
 * row order); chains[i] = {text, done, finished}: text is the completion so far (no EOS),
 * finished means it wrote EOS (done without finished: it ran out of context).
 */
export function startChains(model, prompt, n, {temperature = 1, topP = 1, rand = Math.random} = {}) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`n must be a positive integer, got ${n}`);
  const ids = encodePrompt(model, prompt);
  const cache = newCache(model, n);
  let logits;
  for (const id of ids) logits = forwardRows(model, cache, [0], [id])[0];
  copyCacheRow(model, cache, 0, Array.from({length: n - 1}, (_, i) => i + 1));
  const chains = Array.from({length: n}, () => ({text: "", done: false, finished: false, logits}));
  const decoder = {chains, done: false, tokens: 0};
  decoder.step = () => {
    const rows = [];
    const next = [];
    chains.forEach((chain, row) => {
      if (chain.done) return;
      const token = sampleToken(model, chain.logits, temperature, topP, rand);
      decoder.tokens++;
      if (token === model.eos) {
        chain.done = chain.finished = true;
        return;
      }
      chain.text += model.vocab[token];
      if (cache.lengths[row] >= model.config.context) chain.done = true; // out of context
      else {
        rows.push(row);
        next.push(token);
      }
    });
    if (rows.length) {
      forwardRows(model, cache, rows, next).forEach((l, k) => (chains[rows[k]].logits = l));
    }
    decoder.done = chains.every((c) => c.done);
    return decoder;
  };
  return decoder;
}

/** Sample n whole chains of a prompt (their completion texts, without EOS). */
export function sampleChains(model, prompt, n, options) {
  const decoder = startChains(model, prompt, n, options);
  while (!decoder.done) decoder.step();
  return decoder.chains.map((c) => c.text);
}

/** Sample one whole chain (the completion text, without EOS). */
export function sampleChain(model, prompt, options) {
  return sampleChains(model, prompt, 1, options)[0];
}

// ---------------------------------------------------------------- reading the answer

/**
 * reasoning.extract_answer, restricted to the tiny reasoner's alphabet (digits and + - = ; #):
 * the number after the last "####" that is followed by one, else the last number in the text,
 * its sign kept only when it cannot be a subtraction; canonical ("+7" -> "7", "007" -> "7",
 * "-0" -> "0"). null when the text has no digit.
 */
export function extractAnswer(text) {
  const marked = /^[\s\S]*####\s*([-+]?[0-9]+)/.exec(text);
  let token = null;
  if (marked) token = marked[1];
  else {
    let end = -1;
    for (let i = text.length - 1; i >= 0; i--) if (text[i] >= "0" && text[i] <= "9") { end = i; break; }
    if (end < 0) return null;
    let start = end;
    while (start > 0 && text[start - 1] >= "0" && text[start - 1] <= "9") start--;
    if (start > 0 && (text[start - 1] === "-" || text[start - 1] === "+")) {
      const before = start > 1 ? text[start - 2] : "";
      if (!/[0-9A-Za-z)\]]/.test(before)) start--;
    }
    token = text.slice(start, end + 1);
  }
  const negative = token.startsWith("-");
  const body = token.replace(/^[-+]/, "").replace(/^0+/, "") || "0";
  return negative && body !== "0" ? `-${body}` : body;
}
