// The policy-gradient chapter's maths, computed live by its widgets (code/policy_gradient.py).
// Each export mirrors a Python function and is tested against it in Chromium
// (tests/test_widgets_03b-policy-gradients.py):
//
//   exactGradientVariance    policy_gradient.exact_gradient_variance
import {requireArray, requireFloat, requireProb} from "./checks.js";

/**
 * One sample's REINFORCE estimate g = (r_a - b)(e_a - pi) for a softmax policy, in closed form:
 * Var(b) = sum_a pi_a (r_a - b)^2 |e_a - pi|^2 - |grad J|^2, least at
 * b* = sum_a pi_a w_a r_a / sum_a pi_a w_a (w_a = |e_a - pi|^2).
 * Returns {variance, grad_norm, best_baseline, best_variance, mean_reward}.
 */
export function exactGradientVariance(probs, rewards, baseline = 0) {
  requireArray("probs", probs, {minLength: 2});
  probs.forEach((p) => requireProb("probs", p));
  const total = probs.reduce((s, p) => s + p, 0);
  if (Math.abs(total - 1) > 1e-9) throw new RangeError(`probs must sum to 1, got ${total}`);
  requireArray("rewards", rewards);
  rewards.forEach((r) => requireFloat("rewards", r));
  if (rewards.length !== probs.length) {
    throw new RangeError(`rewards must have one value per answer (${probs.length}), got ${rewards.length}`);
  }
  requireFloat("baseline", baseline);
  const sq = probs.reduce((s, p) => s + p * p, 0);
  const w = probs.map((p) => sq - 2 * p + 1);
  const mean = probs.reduce((s, p, a) => s + p * rewards[a], 0);
  const g2 = probs.reduce((s, p, a) => s + (p * (rewards[a] - mean)) ** 2, 0);
  const pw = probs.reduce((s, p, a) => s + p * w[a], 0);
  const variance = (c) => probs.reduce((s, p, a) => s + p * (rewards[a] - c) ** 2 * w[a], 0) - g2;
  const best = pw > 0 ? probs.reduce((s, p, a) => s + p * w[a] * rewards[a], 0) / pw : 0;
  return {
    variance: Math.max(variance(baseline), 0),
    grad_norm: Math.sqrt(g2),
    best_baseline: best,
    best_variance: Math.max(variance(best), 0),
    mean_reward: mean
  };
}
