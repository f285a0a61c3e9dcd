// CISPO's maths, computed live by chapter 9's widgets, mirroring code/cispo.py and tested
// against it in Chromium (tests/test_widgets_08-cispo.py):
//
//   cispoGradientCoefficient  cispo.cispo_gradient_coefficient
//   ppoClipMask               cispo.ppo_clip_mask (one token at a time, over arrays)
//   clippedIsWeight           cispo.clipped_is_weight (over arrays)
//   reflectionGradients       cispo.demonstrate_reflection_token
import {requireFloat, requireOpenUnit} from "./checks.js";

// ---------------------------------------------------------------- CISPO

function checkEpsLow(epsLow) {
  if (epsLow === null || epsLow === undefined) return null;
  return requireOpenUnit("eps_low", epsLow);
}

/** d J_CISPO / d log pi for one token: A * clip(r, 1 - epsLow, 1 + epsHigh); no floor if null. */
export function cispoGradientCoefficient(ratio, adv, epsHigh = 0.2, epsLow = null) {
  requireFloat("eps_high", epsHigh, {low: 0, lowOpen: true});
  const low = checkEpsLow(epsLow);
  requireFloat("ratio", ratio, {low: 0});
  requireFloat("adv", adv);
  let rHat = Math.min(ratio, 1 + epsHigh);
  if (low !== null) rHat = Math.max(rHat, 1 - low);
  return adv * rHat;
}

/** The trust-region mask of min(r A, clip(r) A): 0 where the clip zeroes the gradient, else 1. */
export function ppoClipMask(ratios, advs, epsHigh = 0.2, epsLow = 0.2) {
  requireFloat("eps_high", epsHigh, {low: 0, lowOpen: true});
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
  requireFloat("eps_high", epsHigh, {low: 0, lowOpen: true});
  const low = checkEpsLow(epsLow);
  return ratios.map((r) => {
    if (r < 0) throw new RangeError("ratio must be non-negative");
    const capped = Math.min(r, 1 + epsHigh);
    return low === null ? capped : Math.max(capped, 1 - low);
  });
}

/**
 * Per-token d loss / d log pi for one batch under GRPO (symmetric clip grpoEps) and CISPO
 * (ceiling epsHigh, no floor), both averaged over the N tokens:
 *   GRPO:  -A r M / N   with M = ppoClipMask(r, A, grpoEps, grpoEps)
 *   CISPO: -A min(r, 1 + epsHigh) / N
 * tokens: [{label, ratio, advantage, is_fork}]. Returns the shape of
 * cispo.demonstrate_reflection_token: {tokens, n_fork, kept_grpo, kept_cispo}.
 */
export function reflectionGradients(tokens, epsHigh = 0.2, grpoEps = 0.2) {
  requireOpenUnit("grpo_eps", grpoEps);
  const ratios = tokens.map((t) => t.ratio);
  const advs = tokens.map((t) => t.advantage);
  const mask = ppoClipMask(ratios, advs, grpoEps, grpoEps);
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
