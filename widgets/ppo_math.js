// PPO's maths, computed live by the policy-gradient chapter's widgets (code/ppo.py). Each export
// mirrors a Python function and is tested against it in Chromium
// (tests/test_widgets_03b-policy-gradients.py):
//
//   clippedSurrogate   ppo.clipped_surrogate_terms, for one ratio and one advantage
//   gae                ppo.gae, for one chain with no padding: {advantages, returns}
import {requireArray, requireFloat, requireOpenUnit, requireProb} from "./checks.js";

/** PPO's pessimistic term min(rho A, clip(rho, 1 - epsLow, 1 + epsHigh) A). */
export function clippedSurrogate(ratio, advantage, epsLow, epsHigh) {
  requireFloat("ratio", ratio);
  requireFloat("advantages", advantage);
  requireOpenUnit("eps_low", epsLow);
  requireOpenUnit("eps_high", epsHigh);
  const clipped = Math.min(Math.max(ratio, 1 - epsLow), 1 + epsHigh);
  return Math.min(ratio * advantage, clipped * advantage);
}

/**
 * Generalised advantage estimation right to left over one chain: delta_t = r_t + gamma V_{t+1} - V_t
 * (V after the last token is 0), A_t = delta_t + gamma lam A_{t+1}, returns_t = A_t + V_t.
 */
export function gae(rewards, values, gamma = 1, lam = 0.95) {
  requireArray("rewards", rewards, {minLength: 1});
  requireArray("values", values);
  if (values.length !== rewards.length) {
    throw new RangeError(`values must have the shape of rewards (${rewards.length}), got ${values.length}`);
  }
  rewards.forEach((r) => requireFloat("rewards", r));
  values.forEach((v) => requireFloat("values", v));
  requireProb("gamma", gamma);
  requireProb("lam", lam);
  const advantages = new Array(rewards.length);
  let nextValue = 0;
  let running = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    const delta = rewards[t] + gamma * nextValue - values[t];
    running = delta + gamma * lam * running;
    nextValue = values[t];
    advantages[t] = running;
  }
  return {advantages, returns: advantages.map((a, t) => a + values[t])};
}
