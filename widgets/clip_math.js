// The clipping maths of the DAPO and CISPO chapters, computed live in the reader's browser.
// Each export mirrors a Python function and is tested against it in Chromium
// (tests/test_widgets_07-dapo.py, tests/test_widgets_08-cispo.py):
//
//   clipGradientCoefficient   dapo.clip_gradient_coefficient
//   wastedFraction            dapo.wasted_fraction
//   keptFraction              dapo.kept_fraction
//   responseWeights           dapo.demonstrate_token_level (the weights it reads off autograd)
//   overlongPenalty           dapo.overlong_penalty
//   cispoGradientCoefficient  cispo.cispo_gradient_coefficient
//   ppoClipMask               cispo.ppo_clip_mask (one token at a time, over arrays)
//   clippedIsWeight           cispo.clipped_is_weight (over arrays)
//   reflectionGradients       cispo.demonstrate_reflection_token

// ---------------------------------------------------------------- argument checks

function checkReal(name, value) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite real number, got ${value}`);
  }
  return value;
}

function checkOpenUnit(name, value) {
  checkReal(name, value);
  if (!(value > 0 && value < 1)) throw new RangeError(`${name} must be in (0, 1), got ${value}`);
  return value;
}

function checkPositive(name, value) {
  checkReal(name, value);
  if (!(value > 0)) throw new RangeError(`${name} must be > 0, got ${value}`);
  return value;
}

function checkInt(name, value, minimum) {
  if (!Number.isInteger(value) || value < minimum) {
    throw new RangeError(`${name} must be an integer >= ${minimum}, got ${value}`);
  }
  return value;
}

// ---------------------------------------------------------------- DAPO: Clip-Higher

/**
 * d term / d log pi for one token of min(r A, clip(r, 1 - clipLow, 1 + clipHigh) A).
 * Since d r / d log pi = r the live branch gives A r; the clipped branch is a constant, so the
 * gradient is exactly 0 when A > 0 and r > 1 + clipHigh, or A < 0 and r < 1 - clipLow.
 */
export function clipGradientCoefficient(ratio, adv, clipLow = 0.2, clipHigh = 0.28) {
  checkOpenUnit("clip_low", clipLow);
  checkOpenUnit("clip_high", clipHigh);
  checkReal("ratio", ratio);
  checkReal("adv", adv);
  if (!(ratio > 0)) throw new RangeError(`ratio must be > 0, got ${ratio}`);
  if ((adv > 0 && ratio > 1 + clipHigh) || (adv < 0 && ratio < 1 - clipLow)) return 0;
  return adv * ratio;
}

// ---------------------------------------------------------------- DAPO: Dynamic Sampling

/** P(a group of G binary rewards is unanimous) = p^G + (1 - p)^G. */
export function wastedFraction(p, G) {
  checkReal("p", p);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0, 1], got ${p}`);
  checkInt("G", G, 1);
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
  lengths.forEach((n) => checkInt("lengths[i]", n, 1));
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
  checkReal("length", length);
  if (length < 0) throw new RangeError(`length must be >= 0, got ${length}`);
  checkPositive("max_len", maxLen);
  checkReal("cache_len", cacheLen);
  if (!(cacheLen > 0 && cacheLen <= maxLen)) {
    throw new RangeError(`cache_len must be in (0, max_len=${maxLen}], got ${cacheLen}`);
  }
  const start = maxLen - cacheLen;
  if (length <= start) return 0;
  if (length <= maxLen) return (start - length) / cacheLen;
  return -1;
}

// ---------------------------------------------------------------- CISPO

function checkEpsLow(epsLow) {
  if (epsLow === null || epsLow === undefined) return null;
  return checkOpenUnit("eps_low", epsLow);
}

/** d J_CISPO / d log pi for one token: A * clip(r, 1 - epsLow, 1 + epsHigh); no floor if null. */
export function cispoGradientCoefficient(ratio, adv, epsHigh = 0.2, epsLow = null) {
  checkPositive("eps_high", epsHigh);
  const low = checkEpsLow(epsLow);
  checkReal("ratio", ratio);
  checkReal("adv", adv);
  if (ratio < 0) throw new RangeError(`ratio must be non-negative, got ${ratio}`);
  let rHat = Math.min(ratio, 1 + epsHigh);
  if (low !== null) rHat = Math.max(rHat, 1 - low);
  return adv * rHat;
}

/** The trust-region mask of min(r A, clip(r) A): 0 where the clip zeroes the gradient, else 1. */
export function ppoClipMask(ratios, advs, epsHigh = 0.2, epsLow = 0.2) {
  checkPositive("eps_high", epsHigh);
  const low = checkEpsLow(epsLow);
  if (ratios.length !== advs.length) {
    throw new RangeError(`adv must be shaped like ratio (${ratios.length}), got ${advs.length}`);
  }
  return ratios.map((r, i) => {
    const a = advs[i];
    const dead = (a > 0 && r > 1 + epsHigh) || (low !== null && a < 0 && r < 1 - low);
    return dead ? 0 : 1;
  });
}

/** CISPO's detached weight clip(r, 1 - epsLow, 1 + epsHigh), elementwise; no floor if null. */
export function clippedIsWeight(ratios, epsHigh = 0.2, epsLow = null) {
  checkPositive("eps_high", epsHigh);
  const low = checkEpsLow(epsLow);
  return ratios.map((r) => {
    if (r < 0) throw new RangeError("ratio must be non-negative");
    const capped = Math.min(r, 1 + epsHigh);
    return low === null ? capped : Math.max(capped, 1 - low);
  });
}

/**
 * Per-token d loss / d log pi for one batch under GRPO (symmetric clip clipEps) and CISPO
 * (ceiling epsHigh, no floor), both averaged over the N tokens:
 *   GRPO:  -A r M / N   with M = ppoClipMask(r, A, clipEps, clipEps)
 *   CISPO: -A min(r, 1 + epsHigh) / N
 * tokens: [{label, ratio, advantage, is_fork}]. Returns the shape of
 * cispo.demonstrate_reflection_token: {tokens, n_fork, kept_grpo, kept_cispo}.
 */
export function reflectionGradients(tokens, epsHigh = 0.2, clipEps = 0.2) {
  checkOpenUnit("clip_eps", clipEps);
  const ratios = tokens.map((t) => t.ratio);
  const advs = tokens.map((t) => t.advantage);
  const mask = ppoClipMask(ratios, advs, clipEps, clipEps);
  const weight = clippedIsWeight(ratios, epsHigh, null);
  const N = tokens.length;
  const out = tokens.map((t, i) => ({
    label: t.label,
    ratio: t.ratio,
    advantage: t.advantage,
    is_fork: t.is_fork,
    grad_grpo: (-t.advantage * t.ratio * mask[i]) / N + 0,
    grad_cispo: (-t.advantage * weight[i]) / N + 0
  }));
  const forks = out.filter((t) => t.is_fork);
  return {
    tokens: out,
    n_fork: forks.length,
    kept_grpo: forks.filter((t) => Math.abs(t.grad_grpo) > 1e-12).length,
    kept_cispo: forks.filter((t) => Math.abs(t.grad_cispo) > 1e-12).length
  };
}
