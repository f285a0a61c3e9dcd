// Chapter 12's arithmetic, mirrored from Python and tested against it (tests/test_widgets_11-r1-pipeline.py).
//
//   smooth(values, window)      r1_pipeline.smooth: trailing mean over the last `window` finite values
//   meanPassAtK(n, counts, k)   evaluation.mean_pass_at_k over problems sampled n times each
//   passAtKTable(n, counts, ks) the same for several k (the pass@k-vs-k curve of a model)
import {passAtK} from "./voting.js";

function checkWindow(window) {
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`window must be an int >= 1, got ${window}`);
}

/**
 * Trailing moving average: point i is the mean of the finite values among values[i-window+1..i].
 * Missing values (null, NaN) are skipped; a window with none gives null.
 */
export function smooth(values, window) {
  if (!Array.isArray(values)) throw new TypeError("values must be an array");
  checkWindow(window);
  const out = [];
  for (let i = 0; i < values.length; i++) {
    let total = 0;
    let count = 0;
    for (let j = Math.max(0, i - window + 1); j <= i; j++) {
      const v = values[j];
      if (v !== null && Number.isFinite(v)) {
        total += v;
        count += 1;
      }
    }
    out.push(count ? total / count : null);
  }
  return out;
}

/** Benchmark pass@k: the mean over problems of the unbiased pass@k from n samples, c right. */
export function meanPassAtK(n, counts, k) {
  if (!Array.isArray(counts) || counts.length === 0) throw new RangeError("counts must be a non-empty array");
  let total = 0;
  for (const c of counts) total += passAtK(n, c, k);
  return total / counts.length;
}

/** [{k, pass}] for each k in ks (k <= n). */
export function passAtKTable(n, counts, ks) {
  return ks.filter((k) => k <= n).map((k) => ({k, pass: meanPassAtK(n, counts, k)}));
}

/** Powers of two from 1 up to n (and n itself): the k grid of a pass@k curve. */
export function powersOfTwo(n) {
  const ks = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks.at(-1) !== n) ks.push(n);
  return ks;
}
