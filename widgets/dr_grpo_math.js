// Dr. GRPO's maths, computed live by chapter 6's widgets (code/dr_grpo.py). Each export mirrors
// a Python function and is tested against it in Chromium (tests/test_widgets_05-dr-grpo.py):
//
//   difficultyWeight         dr_grpo.difficulty_weight
//   perTokenPush             dr_grpo.per_token_push
import {requireArray, requireFloat, requireInt, requireProb} from "./checks.js";

/** GRPO's implicit weight on a 0/1-reward question with a fraction p right: 1 / (sqrt(p(1-p)) + eps). */
export function difficultyWeight(p, eps = 1e-2) {
  requireProb("p", p);
  requireFloat("eps", eps, {low: 0, lowOpen: true});
  return 1 / (Math.sqrt(p * (1 - p)) + eps);
}

/**
 * The on-policy push -d loss / d logp on each token of each response of one group:
 * GRPO A_i / (G |o_i|) per token (A_i / G in all), Dr. GRPO A_i / (G maxLen) per token.
 * Records {length, advantage, grpo, dr_grpo, grpo_total, dr_grpo_total}.
 */
export function perTokenPush(lengths, advantages, maxLen = null) {
  requireArray("lengths", lengths, {minLength: 1});
  requireArray("advantages", advantages);
  if (advantages.length !== lengths.length) {
    throw new RangeError(`advantages must have one value per response (${lengths.length}), got ${advantages.length}`);
  }
  lengths.forEach((n) => requireInt("lengths", n, {low: 1}));
  advantages.forEach((a) => requireFloat("advantages", a));
  const longest = Math.max(...lengths);
  const budget = maxLen === null || maxLen === undefined ? longest : requireInt("max_len", maxLen, {low: 1});
  if (budget < longest) throw new RangeError(`max_len must be >= max(lengths) (${longest}), got ${budget}`);
  const G = lengths.length;
  return lengths.map((n, i) => {
    const a = advantages[i];
    return {
      length: n,
      advantage: a,
      grpo: a / (G * n),
      dr_grpo: a / (G * budget),
      grpo_total: a / G,
      dr_grpo_total: (a * n) / (G * budget)
    };
  });
}
