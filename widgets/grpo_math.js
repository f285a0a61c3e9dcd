// The GRPO maths the chapter 4 and 5 widgets compute live, in the reader's browser.
// Each export mirrors a Python function and is tested against it in Chromium
// (tests/test_widgets_04-grpo.py, tests/test_widgets_05-dr-grpo.py):
//
//   groupStats               torch: r.mean(), r.std(unbiased=False)
//   groupRelativeAdvantages  grpo.group_relative_advantages
//   centeredAdvantages       grpo_variants.centered_advantages
//   difficultyWeight         grpo_variants.difficulty_weight
//   perTokenPush             grpo_variants.per_token_push

function checkRewards(rewards) {
  if (!Array.isArray(rewards)) throw new TypeError(`rewards must be an array, got ${typeof rewards}`);
  if (rewards.length === 0) throw new RangeError("rewards must hold at least one reward per group");
  for (const r of rewards) {
    if (typeof r !== "number" || Number.isNaN(r)) throw new RangeError(`rewards contains NaN or a non-number: ${r}`);
    if (!Number.isFinite(r)) throw new RangeError(`rewards must be finite, got ${r}`);
  }
  return rewards;
}

function checkReal(name, x) {
  if (typeof x !== "number" || !Number.isFinite(x)) throw new RangeError(`${name} must be finite, got ${x}`);
  return x;
}

function checkInt(name, n, min) {
  if (!Number.isInteger(n)) throw new TypeError(`${name} must be an int, got ${n}`);
  if (n < min) throw new RangeError(`${name} must be >= ${min}, got ${n}`);
  return n;
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
  checkReal("eps", eps);
  if (eps < 0) throw new RangeError(`eps must be >= 0, got ${eps}`);
  const centered = centeredAdvantages(rewards);
  const std = Math.sqrt(centered.reduce((s, c) => s + c * c, 0) / centered.length);
  if (std === 0) return centered.map(() => 0);
  return centered.map((c) => c / (std + eps));
}

/** GRPO's implicit weight on a 0/1-reward question with a fraction p right: 1 / (sqrt(p(1-p)) + eps). */
export function difficultyWeight(p, eps = 1e-2) {
  checkReal("p", p);
  if (p < 0 || p > 1) throw new RangeError(`p must be in [0, 1], got ${p}`);
  checkReal("eps", eps);
  if (eps <= 0) throw new RangeError(`eps must be > 0, got ${eps}`);
  return 1 / (Math.sqrt(p * (1 - p)) + eps);
}

/**
 * The on-policy push -d loss / d logp on each token of each response of one group:
 * GRPO A_i / (G |o_i|) per token (A_i / G in all), Dr. GRPO A_i / (G maxLen) per token.
 * Records {length, advantage, grpo, dr_grpo, grpo_total, dr_grpo_total}.
 */
export function perTokenPush(lengths, advantages, maxLen = null) {
  if (!Array.isArray(lengths)) throw new TypeError("lengths must be a sequence of ints");
  if (!Array.isArray(advantages)) throw new TypeError("advantages must be a sequence of numbers");
  if (lengths.length === 0) throw new RangeError("lengths must not be empty");
  if (advantages.length !== lengths.length) {
    throw new RangeError(`advantages must have one value per response (${lengths.length}), got ${advantages.length}`);
  }
  lengths.forEach((n) => checkInt("lengths", n, 1));
  advantages.forEach((a) => checkReal("advantages", a));
  const longest = Math.max(...lengths);
  const budget = maxLen === null || maxLen === undefined ? longest : checkInt("max_len", maxLen, 1);
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
