// DAPO's maths, computed live by chapter 8's widgets (and chapter 9's cliff), mirroring
// code/dapo.py and tested against it in Chromium (tests/test_widgets_07-dapo.py):
//
//   clipGradientCoefficient   dapo.clip_gradient_coefficient
//   wastedFraction            dapo.wasted_fraction
//   keptFraction              dapo.kept_fraction
//   responseWeights           dapo.demonstrate_token_level (the weights it reads off autograd)
//   overlongPenalty           dapo.overlong_penalty
import {requireFloat, requireInt, requireOpenUnit, requireProb} from "./checks.js";

// ---------------------------------------------------------------- DAPO: Clip-Higher

/**
 * d term / d log pi for one token of min(r A, clip(r, 1 - epsLow, 1 + epsHigh) A).
 * Since d r / d log pi = r the live branch gives A r; the clipped branch is a constant, so the
 * gradient is exactly 0 when A > 0 and r > 1 + epsHigh, or A < 0 and r < 1 - epsLow.
 */
export function clipGradientCoefficient(ratio, adv, epsLow = 0.2, epsHigh = 0.28) {
  requireOpenUnit("eps_low", epsLow);
  requireOpenUnit("eps_high", epsHigh);
  requireFloat("ratio", ratio, {low: 0, lowOpen: true});
  requireFloat("adv", adv);
  if ((adv > 0 && ratio > 1 + epsHigh) || (adv < 0 && ratio < 1 - epsLow)) return 0;
  return adv * ratio;
}

// ---------------------------------------------------------------- DAPO: Dynamic Sampling

/** P(a group of G binary rewards is unanimous) = p^G + (1 - p)^G. */
export function wastedFraction(p, G) {
  requireProb("p", p);
  requireInt("G", G, {low: 1});
  return p ** G + (1 - p) ** G;
}

/** P(0 < #correct < G) = 1 - p^G - (1 - p)^G. */
export function keptFraction(p, G) {
  return 1 - wastedFraction(p, G);
}

// ---------------------------------------------------------------- DAPO: token-level loss

/**
 * Each response's share of the loss, and the weight of each of its tokens, under GRPO's
 * sample-level mean (1/G per response) and DAPO's token-level mean (|o_i| / sum_j |o_j|).
 * Records {length, sample_weight, token_weight, sample_per_token, token_per_token}.
 */
export function responseWeights(lengths) {
  if (!Array.isArray(lengths) || lengths.length === 0) {
    throw new RangeError("lengths must be a non-empty array of integers");
  }
  lengths.forEach((n) => requireInt("lengths[i]", n, {low: 1}));
  const G = lengths.length;
  const total = lengths.reduce((s, n) => s + n, 0);
  return lengths.map((n) => ({
    length: n,
    sample_weight: 1 / G,
    token_weight: n / total,
    sample_per_token: 1 / G / n,
    token_per_token: 1 / total
  }));
}

// ---------------------------------------------------------------- DAPO: overlong shaping

/** 0 up to L_max - L_cache, then a straight ramp to -1 at L_max, and -1 beyond it. */
export function overlongPenalty(length, maxLen = 20480, cacheLen = 4096) {
  requireFloat("length", length, {low: 0});
  requireFloat("max_len", maxLen, {low: 0, lowOpen: true});
  requireFloat("cache_len", cacheLen);
  if (!(cacheLen > 0 && cacheLen <= maxLen)) {
    throw new RangeError(`cache_len must be in (0, max_len=${maxLen}], got ${cacheLen}`);
  }
  const start = maxLen - cacheLen;
  if (length <= start) return 0;
  if (length <= maxLen) return (start - length) / cacheLen;
  return -1;
}
