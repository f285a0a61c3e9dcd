// The GRPO maths the chapter 5 widgets compute live, in the reader's browser (code/grpo.py;
// chapter 6's Dr. GRPO maths is dr_grpo_math.js). Each export mirrors a Python function and is
// tested against it in Chromium (tests/test_widgets_04-grpo.py):
//
//   groupStats               torch: r.mean(), r.std(unbiased=False)
//   centeredAdvantages       grpo.center_rewards (= dr_grpo.centered_advantages)
//   groupRelativeAdvantages  grpo.group_relative_advantages
import {requireArray, requireFloat} from "./checks.js";

function checkRewards(rewards) {
  requireArray("rewards", rewards, {minLength: 1});
  rewards.forEach((r) => requireFloat("rewards", r));
  return rewards;
}

/** The group's mean reward and its population standard deviation (divide by G). */
export function groupStats(rewards) {
  checkRewards(rewards);
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length);
  return {mean, std};
}

/** r_i - mean(r); a group whose rewards are all equal gets exact zeros. */
export function centeredAdvantages(rewards) {
  checkRewards(rewards);
  if (rewards.every((r) => r === rewards[0])) return rewards.map(() => 0);
  const {mean} = groupStats(rewards);
  return rewards.map((r) => r - mean);
}

/** GRPO's advantage A_i = (r_i - mean) / (std + eps), std the population std; ties give zeros. */
export function groupRelativeAdvantages(rewards, eps = 1e-6) {
  requireFloat("eps", eps, {low: 0});
  const centered = centeredAdvantages(rewards);
  const std = Math.sqrt(centered.reduce((s, c) => s + c * c, 0) / centered.length);
  if (std === 0) return centered.map(() => 0);
  return centered.map((c) => c / (std + eps));
}
