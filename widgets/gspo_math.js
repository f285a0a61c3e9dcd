// The GSPO maths chapter 7's widgets compute live, in the reader's browser.
// Each export mirrors a Python function in code/ and is tested against it
// (tests/test_widgets_06-gspo.py):
//
//   tokenRatios               grpo.token_ratios
//   sequenceImportanceRatio   gspo.sequence_importance_ratio
//   tokenVsSequenceWeights    gspo.per_token_vs_sequence_weights (given its seeded noise)
//   logRatioVariances         gspo.log_ratio_variances

import {requireFloat, requireInt} from "./checks.js";

function isMatrix(x) {
  return Array.isArray(x) && x.every((row) => Array.isArray(row));
}

function shapeOf(x) {
  return isMatrix(x) ? [x.length, x[0]?.length ?? 0] : [x.length];
}

function checkPair(logpNew, logpOld) {
  if (!Array.isArray(logpNew)) throw new TypeError("logp_new must be an array");
  if (!Array.isArray(logpOld)) throw new TypeError("logp_old must be an array");
  const a = shapeOf(logpNew);
  const b = shapeOf(logpOld);
  const ragged = (x) => isMatrix(x) && x.some((row) => row.length !== x[0].length);
  if (ragged(logpNew)) throw new RangeError("logp_new must be rectangular");
  if (a.join() !== b.join() || ragged(logpOld)) {
    throw new RangeError(`logp_old must have the shape of logp_new (${a}), got (${b})`);
  }
}

/** Per-token importance ratios rho = exp(logp_new - logp_old), elementwise (1-D or 2-D). */
export function tokenRatios(logpNew, logpOld) {
  checkPair(logpNew, logpOld);
  const one = (n, o) => {
    if (Number.isNaN(n)) throw new RangeError("logp_new contains NaN");
    if (Number.isNaN(o)) throw new RangeError("logp_old contains NaN");
    return Math.exp(n - o);
  };
  return isMatrix(logpNew)
    ? logpNew.map((row, i) => row.map((n, t) => one(n, logpOld[i][t])))
    : logpNew.map((n, t) => one(n, logpOld[t]));
}

/**
 * GSPO's length-normalised sequence ratio, (G, T) -> (G):
 *   s_i = exp( mean over the valid tokens t of [logp_new_it - logp_old_it] ),
 * the geometric mean of the per-token ratios. `mask` (optional, (G, T) booleans) marks the real
 * tokens of ragged responses; padding positions are never read.
 */
export function sequenceImportanceRatio(logpNew, logpOld, mask = null) {
  if (!isMatrix(logpNew) || logpNew.length === 0) {
    throw new RangeError("logp_new must have shape (G, T)");
  }
  checkPair(logpNew, logpOld);
  const [G, T] = shapeOf(logpNew);
  if (mask !== null) {
    if (!isMatrix(mask) || shapeOf(mask).join() !== [G, T].join()) {
      throw new RangeError(`mask must have shape (${G}, ${T})`);
    }
    if (mask.some((row) => row.some((m) => typeof m !== "boolean"))) {
      throw new TypeError("mask must hold booleans");
    }
  }
  return logpNew.map((row, i) => {
    let sum = 0;
    let count = 0;
    for (let t = 0; t < T; t++) {
      if (mask !== null && !mask[i][t]) continue;
      if (Number.isNaN(row[t])) throw new RangeError("logp_new contains NaN at a valid position");
      if (Number.isNaN(logpOld[i][t])) throw new RangeError("logp_old contains NaN at a valid position");
      sum += row[t] - logpOld[i][t];
      count += 1;
    }
    if (count === 0) throw new RangeError(`mask row ${i} has no valid token`);
    return Math.exp(sum / count);
  });
}

/**
 * One response's per-token weights beside its single sequence weight, as
 * gspo.per_token_vs_sequence_weights returns them: `noise` is that function's seeded per-token
 * log-ratios (the Python call with no spikes), `spikes` the [position, jump] pairs added on top.
 * Records: {position, token_weight, seq_weight, misbehaving}.
 */
export function tokenVsSequenceWeights(noise, spikes = []) {
  if (!Array.isArray(noise) || noise.length === 0) throw new RangeError("noise must be a non-empty array");
  const logRatio = noise.slice();
  const flagged = new Set();
  for (const pair of spikes) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new RangeError(`spikes must hold (position, jump) pairs, got ${JSON.stringify(pair)}`);
    }
    const [pos, jump] = pair;
    if (!Number.isInteger(pos) || pos < 0 || pos >= noise.length) {
      throw new RangeError(`spikes position must be an integer in [0, ${noise.length}), got ${pos}`);
    }
    if (!Number.isFinite(jump)) throw new RangeError(`spikes jump must be finite, got ${jump}`);
    logRatio[pos] += jump;
    flagged.add(pos);
  }
  const zeros = logRatio.map(() => 0);
  const w = tokenRatios(logRatio, zeros);
  const [s] = sequenceImportanceRatio([logRatio], [zeros]);
  return w.map((tokenWeight, position) => ({
    position,
    token_weight: tokenWeight,
    seq_weight: s,
    misbehaving: flagged.has(position)
  }));
}

/**
 * Closed-form variances of three log-weights when each token's log-ratio is independent with
 * variance v: one token's weight v, the raw product L v, GSPO's geometric mean v / L.
 */
export function logRatioVariances(v, length) {
  requireFloat("v", v, {low: 0, lowOpen: true});
  requireInt("length", length, {low: 1});
  return {token: v, product: length * v, seq: v / length};
}
