// The voting and evaluation maths the widgets compute live, in the reader's browser.
// Each export mirrors a Python function in code/ and is tested against it (tests/test_widget_math.py):
//
//   voteDistribution      reasoning.vote_distribution
//   majorityVote          reasoning.majority_vote
//   condorcetMajorityProb reasoning.condorcet_majority_prob
//   pluralityVoteProb     reasoning.plurality_vote_prob
//   bestOfNAccuracy       reasoning.best_of_n_accuracy
//   passAtK               evaluation.pass_at_k
//   naivePassAtK          evaluation.naive_pass_at_k
//   consAtKCounts         evaluation.cons_at_k_counts
//   consAtKCurve          evaluation.cons_at_k_counts for every k = 1..n
import {requireInt, requireProb} from "./checks.js";
import {erfc} from "./special.js";

// ---------------------------------------------------------------- votes

/**
 * Counts of each non-null answer as [{answer, votes}], in order of first appearance.
 * (An array, not an object: JS objects list integer-like keys such as "42" in numeric order,
 * which would silently break the first-appearance tie rule.)
 */
export function voteDistribution(answers) {
  const counts = new Map();
  for (const a of answers) if (a !== null && a !== undefined) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].map(([answer, votes]) => ({answer, votes}));
}

/** Plurality winner; a tie goes to the answer that appeared first. null if nobody answered. */
export function majorityVote(answers) {
  let best = null;
  let bestCount = 0;
  for (const {answer, votes} of voteDistribution(answers)) {
    if (votes > bestCount) [best, bestCount] = [answer, votes]; // strict: earlier answers keep ties
  }
  return best;
}

// ---------------------------------------------------------------- small numerics

const LOG_FACT = [0];
function logFactorial(n) {
  for (let i = LOG_FACT.length; i <= n; i++) LOG_FACT[i] = LOG_FACT[i - 1] + Math.log(i);
  return LOG_FACT[n];
}

const INV_FACT = [1];
/** 1 / x!, tabulated: the plurality DP multiplies by it in its innermost loop. */
function invFactorial(x) {
  for (let i = INV_FACT.length; i <= x; i++) INV_FACT[i] = Math.exp(-logFactorial(i));
  return INV_FACT[x];
}

function logChoose(n, k) {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/** P(Binomial(n, p) = k), computed in log space so large n neither overflows nor underflows. */
function binomialPmf(n, k, p) {
  if (p === 0) return k === 0 ? 1 : 0;
  if (p === 1) return k === n ? 1 : 0;
  return Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

const normalCdf = (x) => 0.5 * erfc(-x / Math.SQRT2);
const normalPdf = (x) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

const checkProbability = requireProb;
const checkCount = (name, n, min = 1) => requireInt(name, n, {low: min});

// ---------------------------------------------------------------- Condorcet and plurality

/** P(more than half of n independent voters are right); an even-n tie is a fair coin flip. */
export function condorcetMajorityProb(p, n) {
  checkProbability("p", p);
  checkCount("n", n);
  let total = 0;
  for (let k = Math.floor(n / 2) + 1; k <= n; k++) total += binomialPmf(n, k, p);
  if (n % 2 === 0) total += 0.5 * binomialPmf(n, n / 2, p);
  return Math.min(1, total);
}

/**
 * Exact P(the plurality of n samples is correct) when a sample is correct with probability p and
 * otherwise lands uniformly on one of D distinct wrong answers; a tie among m answers is won by
 * the correct one with probability 1/m (the first-appearance rule, by symmetry).
 *
 * For each number j of correct votes, spread the other n - j votes over the D wrong answers
 * (a multinomial) and keep only spreads where no wrong answer beats j, tracking how many tie it.
 */
export function pluralityVoteProb(p, n, D) {
  checkProbability("p", p);
  checkCount("n", n);
  checkCount("num_distractors", D);
  let total = 0;
  for (let j = 1; j <= n; j++) {
    const pj = binomialPmf(n, j, p);
    if (pj === 0) continue;
    const m = n - j;
    // ways[s][t]: sum over spreads of s votes among the distractors seen so far, each wrong answer
    // getting <= j votes and t of them exactly j, of prod 1 / x_i!  (multinomial weights).
    let ways = [[1]];
    for (let d = 0; d < D; d++) {
      const next = Array.from({length: m + 1}, () => new Array(D + 1).fill(0));
      for (let s = 0; s < ways.length; s++) {
        for (let t = 0; t < ways[s].length; t++) {
          const w = ways[s][t];
          if (!w) continue;
          for (let x = 0; x <= Math.min(j, m - s); x++) {
            next[s + x][t + (x === j ? 1 : 0)] += w * invFactorial(x);
          }
        }
      }
      ways = next;
    }
    const scale = Math.exp(logFactorial(m) - m * Math.log(D));
    let win = 0;
    for (let t = 0; t <= D; t++) win += (ways[m]?.[t] ?? 0) * scale / (t + 1);
    total += pj * win;
  }
  return Math.min(1, total);
}

// ---------------------------------------------------------------- best-of-N with a noisy verifier

/**
 * P(the best-scored of n samples is correct) when a sample is correct with probability p and a
 * verifier scores correct samples N(separation, 1), wrong ones N(0, 1).
 *
 * With k correct samples the best one is correct iff the top correct score beats the top wrong
 * score: integral of k * pdf(x - d) * cdf(x - d)^(k-1) * cdf(x)^(n-k) dx (trapezoid rule).
 */
export function bestOfNAccuracy(p, n, separation) {
  checkProbability("p", p);
  checkCount("n", n);
  if (!Number.isFinite(separation)) throw new RangeError(`separation must be finite, got ${separation}`);
  const lo = Math.min(0, separation) - 9;
  const hi = Math.max(0, separation) + 9;
  const steps = 1800;
  const h = (hi - lo) / steps;
  const xs = Array.from({length: steps + 1}, (_, i) => lo + i * h);
  const pdfC = xs.map((x) => normalPdf(x - separation));
  const cdfC = xs.map((x) => normalCdf(x - separation));
  const cdfW = xs.map((x) => normalCdf(x));
  // The sum over k = 1..n-1 of pmf(k) * integrand_k, taken inside the integral, is by the
  // binomial theorem n p pdf(x - d) (p cdf(x - d) + (1 - p) cdf(x))^(n-1) minus its k = n term
  // pmf(n) n pdf(x - d) cdf(x - d)^(n-1): the same trapezoid sum as the loop over k that
  // reasoning.best_of_n_accuracy runs, in one pass over the grid instead of n - 1.
  const pn = binomialPmf(n, n, p);
  let integral = 0;
  for (let i = 0; i <= steps; i++) {
    const mix = p * cdfC[i] + (1 - p) * cdfW[i];
    const f = n * pdfC[i] * (p * mix ** (n - 1) - pn * cdfC[i] ** (n - 1));
    integral += i === 0 || i === steps ? f / 2 : f;
  }
  const total = pn + Math.max(0, integral * h); // k = n: every sample correct, the best one is too
  return Math.min(1, total);
}

// ---------------------------------------------------------------- pass@k and cons@k

/** Unbiased pass@k = 1 - C(n-c, k) / C(n, k), as the stable product 1 - prod (1 - k/i). */
export function passAtK(n, c, k) {
  checkCount("n", n);
  checkCount("c", c, 0);
  checkCount("k", k);
  if (c > n) throw new RangeError(`c must be <= n, got c=${c}, n=${n}`);
  if (k > n) throw new RangeError(`k must be <= n, got k=${k}, n=${n}`);
  if (n - c < k) return 1;
  let logAllWrong = 0;
  for (let i = n - c + 1; i <= n; i++) logAllWrong += Math.log1p(-k / i);
  return 1 - Math.exp(logAllWrong);
}

/** The biased plug-in estimate 1 - (1 - c/n)^k (draws with replacement). */
export function naivePassAtK(n, c, k) {
  checkCount("n", n);
  checkCount("c", c, 0);
  checkCount("k", k);
  if (c > n) throw new RangeError(`c must be <= n, got c=${c}, n=${n}`);
  return 1 - (1 - c / n) ** k;
}

/**
 * Exact cons@k from a tally: the chance that the majority vote of k samples drawn without
 * replacement from the n tallied ones is `correct` (ties among m answers count 1/m).
 * `counts` maps answer -> count; `numNone` samples had no answer (they fill slots, never vote).
 */
export function consAtKCounts(counts, correct, k, numNone = 0) {
  const groups = Object.entries(counts);
  const n = groups.reduce((s, [, c]) => s + c, 0) + numNone;
  checkCount("k", k);
  if (k > n) throw new RangeError(`k must be <= n, got k=${k}, n=${n}`);
  const c = counts[correct] ?? 0;
  const wrong = groups.filter(([a]) => a !== correct).map(([, count]) => count);
  const logTotal = logChoose(n, k);
  let total = 0;
  for (let j = 1; j <= Math.min(c, k); j++) {
    // ways[s][t]: subsets taking s samples from the wrong groups seen so far, none with more than
    // j, t of them with exactly j; then the rest of the k slots come from the None samples.
    let ways = [[1]];
    for (const w of wrong) {
      const next = Array.from({length: k - j + 1}, () => new Array(wrong.length + 1).fill(0));
      for (let s = 0; s < ways.length; s++) {
        for (let t = 0; t < ways[s].length; t++) {
          if (!ways[s][t]) continue;
          for (let x = 0; x <= Math.min(j, w, k - j - s); x++) {
            next[s + x][t + (x === j ? 1 : 0)] += ways[s][t] * Math.exp(logChoose(w, x));
          }
        }
      }
      ways = next;
    }
    for (let s = 0; s < ways.length; s++) {
      const rest = k - j - s;
      if (rest > numNone) continue;
      const logFill = logChoose(c, j) + logChoose(numNone, rest) - logTotal;
      for (let t = 0; t < ways[s].length; t++) {
        if (ways[s][t]) total += (ways[s][t] * Math.exp(logFill)) / (t + 1);
      }
    }
  }
  return Math.min(1, total);
}

/**
 * consAtKCounts for every k at once: curve[k] = cons@k for k = 1..n (curve[0] = 0), the same
 * exact sum, organised so that nothing is recomputed per k (what a chart of cons@k against k
 * needs). As in evaluation.cons_at_k_counts, condition on j correct samples drawn: wrong
 * answers with fewer than j samples join the None samples in a free pool; a DP over the other
 * ("contender") answers gives, for each number s of contender samples drawn, the tie-weighted
 * ways B_j[s] = sum_t ways[s][t] / (t + 1) with every contender drawn <= j times. That DP does
 * not depend on k; k only decides how many slots the pool fills, r = k - j - s. So
 *   cons@k = sum_j C(c, j) sum_s B_j[s] C(pool_j, r) / C(n, k),
 * a convolution per j. (Counts stay below C(n - c, k - j) < 2^n: exact-enough doubles for n
 * up to about 1000, which the widgets never approach.)
 */
export function consAtKCurve(counts, correct, numNone = 0) {
  const groups = Object.entries(counts);
  const n = groups.reduce((s, [, c]) => s + c, 0) + numNone;
  checkCount("n", n);
  const c = counts[correct] ?? 0;
  const wrong = groups.filter(([a]) => a !== correct).map(([, count]) => count).filter((w) => w > 0);
  const curve = new Float64Array(n + 1);
  const choose = (a, b) => Math.exp(logChoose(a, b));
  for (let j = 1; j <= c; j++) {
    const pool = numNone + wrong.filter((w) => w < j).reduce((s, w) => s + w, 0);
    const contenders = wrong.filter((w) => w >= j);
    const maxS = Math.min(n - c, contenders.length * j); // contender samples drawn, each <= j
    // ways[s * T + t] over the contenders seen so far (T = number of contenders + 1).
    const T = contenders.length + 1;
    let ways = new Float64Array((maxS + 1) * T);
    ways[0] = 1;
    let reach = 0; // largest s reachable so far
    for (const size of contenders) {
      const next = new Float64Array((maxS + 1) * T);
      const top = Math.min(size, j);
      const weights = Array.from({length: top + 1}, (_, x) => choose(size, x));
      for (let s = 0; s <= reach; s++) {
        for (let t = 0; t < T; t++) {
          const w = ways[s * T + t];
          if (!w) continue;
          for (let x = 0; x <= top && s + x <= maxS; x++) {
            next[(s + x) * T + t + (x === j ? 1 : 0)] += w * weights[x];
          }
        }
      }
      reach = Math.min(maxS, reach + top);
      ways = next;
    }
    const B = new Float64Array(reach + 1);
    for (let s = 0; s <= reach; s++) for (let t = 0; t < T; t++) B[s] += ways[s * T + t] / (t + 1);
    const fill = Array.from({length: pool + 1}, (_, r) => choose(pool, r));
    const logCj = logChoose(c, j);
    for (let k = j; k <= n; k++) {
      let sum = 0; // sum_s B[s] C(pool, k - j - s)
      const m = k - j;
      for (let s = Math.max(0, m - pool); s <= Math.min(reach, m); s++) sum += B[s] * fill[m - s];
      if (sum) curve[k] += sum * Math.exp(logCj - logChoose(n, k));
    }
  }
  for (let k = 1; k <= n; k++) curve[k] = Math.min(1, curve[k]);
  return Array.from(curve);
}
