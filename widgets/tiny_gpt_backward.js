// The tiny reasoner's forward pass over whole chains, with a tape, and its backward pass: the
// gradient of any function of the chains' per-token log-probs with respect to every weight.
// It mirrors tiny_gpt.completion_logprobs followed by loss.backward() and is tested against
// PyTorch in Chromium (tests/test_widgets_rl_trainer_parity.py: gradients within 1e-4).
//
// The weights are the ones tiny_gpt_forward.js reads (model.weights, model.layers: the same
// Float32Arrays, so the sampler always sees the trained model) and the layer arithmetic is the
// one written out there: x = E[token] + P[pos]; per layer x += W_o attn(LN1 x) and
// x += W_2 gelu(W_1 LN2 x); logits = LN_f(x) E^T. Here a *chunk* of chains is one matrix of
// rows (every position of every chain, no padding: a chain's row t sees rows 0..t of its own
// chain only), so each weight is read once per chunk.
//
//   chainLogprobs(model, chains, {grads, coefficients, maxRows})
//     chains[i] = {ids, start, targets}: ids = [BOS] prompt completion[:-1] (token ids), the
//     log-prob of targets[t] is read at row start + t (start = prompt length with BOS, - 1).
//     Returns, per chain, a Float64Array of log pi(targets[t] | prefix) (PAD and BOS are not
//     outputs, as in tiny_gpt._output_log_probs). With grads (name -> Float64Array, accumulated
//     into) and coefficients(i, logp) -> dL/dlogp (a Float64Array, or null for none), it also
//     runs the backward pass of L = sum_i sum_t coefficient_it logp_it, chunk by chunk: the
//     losses of rl_trainer_math.js are sums over chains once their normalisers are known.
//
// Activations are float32 (as in PyTorch). The matrix products run in WebAssembly SIMD
// (gemm_wasm.js, float32 sums) where the browser has it, else in the JavaScript gemmNT below
// (float64 sums); setWasmGemm(false) forces the latter (the benchmark compares the two).
import {gemmNTWasm, hasWasmGemm} from "./gemm_wasm.js";
import {erf} from "./special.js";
import {layerNorm} from "./tiny_gpt_forward.js"; // the one forward LayerNorm; the tape keeps its row statistics

const SQRT_HALF = Math.SQRT1_2;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

// ---------------------------------------------------------------- the matrix kernel

/**
 * C (M x N) = A (M x K) . B (N x K)^T (+ bias), or C += that with accumulate. Every operand is
 * row-major, so both inner loops run along contiguous memory: four rows of A and two of B at a
 * time (eight running sums), each A value loaded once for two outputs, each B value for four.
 * The backward pass brings its products to this form by transposing (transpose below).
 */
export function gemmNT(A, B, C, M, N, K, bias = null, accumulate = false) {
  let m = 0;
  for (; m + 3 < M; m += 4) {
    const a0 = m * K, a1 = a0 + K, a2 = a1 + K, a3 = a2 + K;
    const c0 = m * N, c1 = c0 + N, c2 = c1 + N, c3 = c2 + N;
    let n = 0;
    for (; n + 1 < N; n += 2) {
      const b0 = n * K, b1 = b0 + K;
      let s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0;
      for (let k = 0; k < K; k++) {
        const w0 = B[b0 + k], w1 = B[b1 + k];
        const x0 = A[a0 + k], x1 = A[a1 + k], x2 = A[a2 + k], x3 = A[a3 + k];
        s00 += x0 * w0; s01 += x0 * w1; s10 += x1 * w0; s11 += x1 * w1;
        s20 += x2 * w0; s21 += x2 * w1; s30 += x3 * w0; s31 += x3 * w1;
      }
      if (accumulate) {
        C[c0 + n] += s00; C[c0 + n + 1] += s01; C[c1 + n] += s10; C[c1 + n + 1] += s11;
        C[c2 + n] += s20; C[c2 + n + 1] += s21; C[c3 + n] += s30; C[c3 + n + 1] += s31;
      } else {
        const p = bias ? bias[n] : 0, q = bias ? bias[n + 1] : 0;
        C[c0 + n] = p + s00; C[c0 + n + 1] = q + s01; C[c1 + n] = p + s10; C[c1 + n + 1] = q + s11;
        C[c2 + n] = p + s20; C[c2 + n + 1] = q + s21; C[c3 + n] = p + s30; C[c3 + n + 1] = q + s31;
      }
    }
    for (; n < N; n++) { // an odd last column
      const b0 = n * K;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < K; k++) {
        const w = B[b0 + k];
        s0 += A[a0 + k] * w; s1 += A[a1 + k] * w; s2 += A[a2 + k] * w; s3 += A[a3 + k] * w;
      }
      const p = accumulate ? 0 : bias ? bias[n] : 0;
      if (accumulate) { C[c0 + n] += s0; C[c1 + n] += s1; C[c2 + n] += s2; C[c3 + n] += s3; }
      else { C[c0 + n] = p + s0; C[c1 + n] = p + s1; C[c2 + n] = p + s2; C[c3 + n] = p + s3; }
    }
  }
  for (; m < M; m++) { // the last rows, one at a time
    const a0 = m * K, c0 = m * N;
    for (let n = 0; n < N; n++) {
      const b0 = n * K;
      let s = 0;
      for (let k = 0; k < K; k++) s += A[a0 + k] * B[b0 + k];
      if (accumulate) C[c0 + n] += s;
      else C[c0 + n] = (bias ? bias[n] : 0) + s;
    }
  }
}

let mm = hasWasmGemm ? gemmNTWasm : gemmNT;

/** Use the WebAssembly product (true, where available) or the JavaScript loops; returns which. */
export function setWasmGemm(on) {
  mm = on && hasWasmGemm ? gemmNTWasm : gemmNT;
  return mm === gemmNTWasm;
}

/** out (cols x rows) = X (rows x cols)^T. */
export function transpose(X, out, rows, cols) {
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let c = 0; c < cols; c++) out[c * rows + r] = X[o + c];
  }
  return out;
}

function addColumnSums(dY, db, S, N) {
  for (let s = 0; s < S; s++) {
    const o = s * N;
    for (let n = 0; n < N; n++) db[n] += dY[o + n];
  }
}

// ---------------------------------------------------------------- LayerNorm, GELU

// dX += rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dxhat = dY w; dw += dY xhat, db += dY.
function layerNormBackward(dY, X, w, mean, rstd, dX, dw, db, S, C) {
  for (let s = 0; s < S; s++) {
    const o = s * C;
    const mu = mean[s], r = rstd[s];
    let m1 = 0, m2 = 0;
    for (let i = 0; i < C; i++) {
      const xhat = (X[o + i] - mu) * r;
      const g = dY[o + i];
      const dxhat = g * w[i];
      dw[i] += g * xhat;
      db[i] += g;
      m1 += dxhat;
      m2 += dxhat * xhat;
    }
    m1 /= C;
    m2 /= C;
    for (let i = 0; i < C; i++) {
      const xhat = (X[o + i] - mu) * r;
      dX[o + i] += r * (dY[o + i] * w[i] - m1 - xhat * m2);
    }
  }
}

// gelu'(x) = Phi(x) + x phi(x); Phi(x) = (1 + erf(x / sqrt 2)) / 2 is on the tape (the forward
// pass's own erf, kept so the backward pass does not evaluate it again).
function geluGrad(x, cdf) {
  return cdf + x * INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

// ---------------------------------------------------------------- buffers

function workspace(model, rows, attention) {
  const C = model.config.n_embd, V = model.config.vocab_size, L = model.config.n_layer;
  model._tape ??= {};
  const tape = model._tape;
  if (!(tape.rows >= rows) || !(tape.attention >= attention)) {
    const f = (n) => new Float32Array(n);
    const R = Math.max(rows, tape.rows ?? 0), A = Math.max(attention, tape.attention ?? 0);
    tape.rows = R;
    tape.attention = A;
    tape.layers = Array.from({length: L}, () => ({
      x: f(R * C), mean1: f(R), rstd1: f(R), h1: f(R * C), qkv: f(R * 3 * C), P: f(A), y: f(R * C),
      x2: f(R * C), mean2: f(R), rstd2: f(R), h2: f(R * C), pre: f(R * 4 * C), cdf: f(R * 4 * C), g: f(R * 4 * C)
    }));
    Object.assign(tape, {
      x: f(R * C), meanF: f(R), rstdF: f(R), hf: f(R * C), logits: f(R * V),
      dx: f(R * C), dx2: f(R * C), dA: f(R * 4 * C), dB: f(R * 4 * C), dqkv: f(R * 3 * C),
      T1: f(R * 4 * C), T2: f(R * 4 * C), dlogits: f(R * V), tok: new Int32Array(R), pos: new Int32Array(R)
    });
  }
  return tape;
}

// Transposed weights for the backward pass, refilled once per call (the weights change between
// calls) into buffers the model keeps: 3 MB that would otherwise be garbage at every call.
function transposedWeights(model) {
  const C = model.config.n_embd, V = model.config.vocab_size;
  const old = model._transposed;
  const t = (W, rows, cols, into) => transpose(W, into ?? new Float32Array(rows * cols), rows, cols);
  model._transposed = {
    wte: t(model.weights["wte.weight"], V, C, old?.wte),
    layers: model.layers.map((l, i) => ({
      qkv: t(l.qkvW, 3 * C, C, old?.layers[i].qkv), proj: t(l.projW, C, C, old?.layers[i].proj),
      fc: t(l.fcW, 4 * C, C, old?.layers[i].fc), fc2: t(l.fc2W, C, 4 * C, old?.layers[i].fc2)
    }))
  };
  return model._transposed;
}

// ---------------------------------------------------------------- one chunk

// Causal attention of every chain in the chunk, head by head; P keeps the softmax weights.
function attentionForward(qkv, y, P, spans, C, H) {
  const hd = C / H, scale = 1 / Math.sqrt(hd), C3 = 3 * C;
  const acc = new Float64Array(hd);
  for (const {row, length, att} of spans) {
    for (let h = 0; h < H; h++) {
      const p0 = att + h * length * length;
      for (let t = 0; t < length; t++) {
        const q = (row + t) * C3 + h * hd;
        const pt = p0 + t * length;
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          const k = (row + s) * C3 + C + h * hd;
          let dot = 0;
          for (let i = 0; i < hd; i++) dot += qkv[q + i] * qkv[k + i];
          dot *= scale;
          P[pt + s] = dot;
          if (dot > max) max = dot;
        }
        let total = 0;
        for (let s = 0; s <= t; s++) {
          const e = Math.exp(P[pt + s] - max);
          P[pt + s] = e;
          total += e;
        }
        const yo = (row + t) * C + h * hd;
        acc.fill(0); // the sums in float64, stored once (as the float32 tape keeps them)
        for (let s = 0; s <= t; s++) {
          const w = P[pt + s] / total;
          P[pt + s] = w;
          const v = (row + s) * C3 + 2 * C + h * hd;
          for (let i = 0; i < hd; i++) acc[i] += w * qkv[v + i];
        }
        for (let i = 0; i < hd; i++) y[yo + i] = acc[i];
      }
    }
  }
}

// dP = dy v^T, dv = P^T dy, dS = P (dP - sum P dP), dq = dS k scale, dk = dS^T q scale.
function attentionBackward(qkv, P, dy, dqkv, spans, C, H) {
  const hd = C / H, scale = 1 / Math.sqrt(hd), C3 = 3 * C;
  dqkv.fill(0, 0, (spans.at(-1).row + spans.at(-1).length) * C3);
  const dP = new Float64Array(64), dq = new Float64Array(hd), qt = new Float64Array(hd), dyt = new Float64Array(hd);
  for (const {row, length, att} of spans) {
    for (let h = 0; h < H; h++) {
      const p0 = att + h * length * length;
      for (let t = 0; t < length; t++) {
        const pt = p0 + t * length;
        const yo = (row + t) * C + h * hd;
        let dot = 0;
        for (let i = 0; i < hd; i++) dyt[i] = dy[yo + i];
        for (let s = 0; s <= t; s++) {
          const v = (row + s) * C3 + 2 * C + h * hd;
          let d = 0;
          for (let i = 0; i < hd; i++) d += dyt[i] * qkv[v + i];
          dP[s] = d;
          dot += d * P[pt + s];
          const w = P[pt + s];
          for (let i = 0; i < hd; i++) dqkv[v + i] += w * dyt[i];
        }
        const q = (row + t) * C3 + h * hd;
        for (let i = 0; i < hd; i++) { dq[i] = 0; qt[i] = qkv[q + i]; }
        for (let s = 0; s <= t; s++) {
          const dS = P[pt + s] * (dP[s] - dot) * scale;
          const k = (row + s) * C3 + C + h * hd;
          for (let i = 0; i < hd; i++) {
            dq[i] += dS * qkv[k + i];
            dqkv[k + i] += dS * qt[i];
          }
        }
        for (let i = 0; i < hd; i++) dqkv[q + i] += dq[i];
      }
    }
  }
}

function forwardChunk(model, tape, spans, S) {
  const {n_embd: C, n_head: H, vocab_size: V} = model.config;
  const wte = model.weights["wte.weight"], wpe = model.weights["wpe.weight"];
  let x = tape.layers.length ? tape.layers[0].x : tape.x;
  for (let s = 0; s < S; s++) {
    const e = tape.tok[s] * C, p = tape.pos[s] * C;
    for (let i = 0; i < C; i++) x[s * C + i] = wte[e + i] + wpe[p + i];
  }
  model.layers.forEach((w, l) => {
    const a = tape.layers[l];
    layerNorm(a.x, w.ln1w, w.ln1b, a.h1, C, S, a.mean1, a.rstd1);
    mm(a.h1, w.qkvW, a.qkv, S, 3 * C, C, w.qkvB);
    attentionForward(a.qkv, a.y, a.P, spans, C, H);
    mm(a.y, w.projW, a.x2, S, C, C, w.projB);
    for (let i = 0; i < S * C; i++) a.x2[i] += a.x[i];
    layerNorm(a.x2, w.ln2w, w.ln2b, a.h2, C, S, a.mean2, a.rstd2);
    mm(a.h2, w.fcW, a.pre, S, 4 * C, C, w.fcB);
    for (let i = 0; i < S * 4 * C; i++) {
      const v = a.pre[i];
      const cdf = 0.5 * (1 + erf(v * SQRT_HALF));
      a.cdf[i] = cdf;
      a.g[i] = v * cdf;
    }
    const next = l + 1 < tape.layers.length ? tape.layers[l + 1].x : tape.x;
    mm(a.g, w.fc2W, next, S, C, 4 * C, w.fc2B);
    for (let i = 0; i < S * C; i++) next[i] += a.x2[i];
    x = next;
  });
  layerNorm(tape.x, model.weights["ln_f.weight"], model.weights["ln_f.bias"], tape.hf, C, S, tape.meanF, tape.rstdF);
  mm(tape.hf, wte, tape.logits, S, V, C);
}

// dW (N x K) += dY (S x N)^T X (S x K), through the transposes the kernel wants.
function weightGradient(dY, X, dW, S, N, K, tape) {
  transpose(dY, tape.T1, S, N);
  transpose(X, tape.T2, S, K);
  mm(tape.T1, tape.T2, dW, N, K, S, null, true);
}

function backwardChunk(model, tape, spans, S, grads, wt) {
  const {n_embd: C, n_head: H, vocab_size: V} = model.config;
  const {dx, dx2, dA, dB, dqkv} = tape;
  const gWte = grads["wte.weight"];
  // the tied head: logits = hf E^T
  weightGradient(tape.dlogits, tape.hf, gWte, S, V, C, tape);
  mm(tape.dlogits, wt.wte, dA, S, C, V); // dhf
  dx.fill(0, 0, S * C);
  layerNormBackward(dA, tape.x, model.weights["ln_f.weight"], tape.meanF, tape.rstdF, dx,
    grads["ln_f.weight"], grads["ln_f.bias"], S, C);
  for (let l = model.layers.length - 1; l >= 0; l--) {
    const w = model.layers[l], a = tape.layers[l], t = wt.layers[l];
    const g = (name) => grads[`blocks.${l}.${name}`];
    // MLP: x_out = x2 + W_2 gelu(W_1 LN2(x2) + b_1) + b_2
    addColumnSums(dx, g("fc_proj.bias"), S, C);
    weightGradient(dx, a.g, g("fc_proj.weight"), S, C, 4 * C, tape);
    mm(dx, t.fc2, dB, S, 4 * C, C); // d gelu output
    for (let i = 0; i < S * 4 * C; i++) dB[i] *= geluGrad(a.pre[i], a.cdf[i]);
    addColumnSums(dB, g("fc.bias"), S, 4 * C);
    weightGradient(dB, a.h2, g("fc.weight"), S, 4 * C, C, tape);
    mm(dB, t.fc, dA, S, C, 4 * C); // d LN2 output
    dx2.set(dx.subarray(0, S * C));
    layerNormBackward(dA, a.x2, w.ln2w, a.mean2, a.rstd2, dx2, g("ln2.weight"), g("ln2.bias"), S, C);
    // attention: x2 = x + W_o attn(LN1(x)) + b_o
    addColumnSums(dx2, g("attn.proj.bias"), S, C);
    weightGradient(dx2, a.y, g("attn.proj.weight"), S, C, C, tape);
    mm(dx2, t.proj, dA, S, C, C); // d attention output
    attentionBackward(a.qkv, a.P, dA, dqkv, spans, C, H);
    addColumnSums(dqkv, g("attn.qkv.bias"), S, 3 * C);
    weightGradient(dqkv, a.h1, g("attn.qkv.weight"), S, 3 * C, C, tape);
    mm(dqkv, t.qkv, dA, S, C, 3 * C); // d LN1 output
    dx.set(dx2.subarray(0, S * C));
    layerNormBackward(dA, a.x, w.ln1w, a.mean1, a.rstd1, dx, g("ln1.weight"), g("ln1.bias"), S, C);
  }
  const gWpe = grads["wpe.weight"];
  for (let s = 0; s < S; s++) {
    const e = tape.tok[s] * C, p = tape.pos[s] * C;
    for (let i = 0; i < C; i++) {
      gWte[e + i] += dx[s * C + i];
      gWpe[p + i] += dx[s * C + i];
    }
  }
}

// ---------------------------------------------------------------- many chains

/** Zeroed gradient buffers, one Float64Array per weight (name -> array). */
export function zeroGrads(model, grads = null) {
  if (grads) {
    for (const g of Object.values(grads)) g.fill(0);
    return grads;
  }
  return Object.fromEntries(Object.entries(model.weights).map(([k, w]) => [k, new Float64Array(w.length)]));
}

/** Per-chain log-probs of their targets, and optionally the backward pass (see the top). */
export function chainLogprobs(model, chains, {grads = null, coefficients = null, maxRows = 768} = {}) {
  const {context, vocab_size: V, n_head: H} = model.config;
  for (const c of chains) {
    if (c.ids.length < 1 || c.ids.length > context) throw new Error(`a chain of ${c.ids.length} tokens does not fit the context of ${context}`);
    if (c.start < 0 || c.start + c.targets.length > c.ids.length) throw new Error("chain targets run past its tokens");
  }
  const out = new Array(chains.length);
  const wt = grads ? transposedWeights(model) : null;
  let first = 0;
  while (first < chains.length) {
    // A chunk: chains while their rows fit maxRows (at least one chain).
    let rows = 0, attention = 0, last = first;
    while (last < chains.length && (last === first || rows + chains[last].ids.length <= maxRows)) {
      rows += chains[last].ids.length;
      attention += H * chains[last].ids.length ** 2;
      last++;
    }
    const tape = workspace(model, rows, attention);
    const spans = [];
    let row = 0, att = 0;
    for (let i = first; i < last; i++) {
      const {ids} = chains[i];
      spans.push({row, length: ids.length, att});
      for (let t = 0; t < ids.length; t++) {
        tape.tok[row + t] = ids[t];
        tape.pos[row + t] = t;
      }
      row += ids.length;
      att += H * ids.length ** 2;
    }
    forwardChunk(model, tape, spans, rows);
    if (grads) tape.dlogits.fill(0, 0, rows * V);
    let any = false;
    for (let i = first; i < last; i++) {
      const {start, targets} = chains[i];
      const base = spans[i - first].row;
      const logp = new Float64Array(targets.length);
      const probs = [];
      for (let t = 0; t < targets.length; t++) {
        const o = (base + start + t) * V;
        let max = -Infinity;
        for (let v = 0; v < V; v++) if (v !== model.pad && v !== model.bos && tape.logits[o + v] > max) max = tape.logits[o + v];
        let total = 0;
        for (let v = 0; v < V; v++) if (v !== model.pad && v !== model.bos) total += Math.exp(tape.logits[o + v] - max);
        const lse = max + Math.log(total);
        logp[t] = tape.logits[o + targets[t]] - lse;
        probs.push(lse);
      }
      out[i] = logp;
      const coef = grads && coefficients ? coefficients(i, logp) : null;
      if (!coef) continue;
      any = true;
      // d logp_t / d z_v = 1[v = target] - softmax_v (PAD and BOS: no gradient, as their -inf)
      for (let t = 0; t < targets.length; t++) {
        const c = coef[t];
        if (c === 0) continue;
        const o = (base + start + t) * V;
        for (let v = 0; v < V; v++) {
          if (v === model.pad || v === model.bos) continue;
          tape.dlogits[o + v] -= c * Math.exp(tape.logits[o + v] - probs[t]);
        }
        tape.dlogits[o + targets[t]] += c;
      }
    }
    if (any) backwardChunk(model, tape, spans, rows, grads, wt);
    first = last;
  }
  return out;
}
