// RL on the tiny reasoner in the reader's tab: code/rl_reasoner.py's step, in JavaScript, over
// the same checkpoint (data/r1_cold_start.*). Tested against PyTorch in Chromium
// (tests/test_widgets_rl_trainer_parity.py: the same batch gives the same loss, gradients and
// weights after three AdamW steps, for all six objectives).
//
// API (the trainer widget's worker calls these; every argument is checked, errors name it):
//
//   createTrainer(model, cfg = {}, seed = 0) -> trainer
//     model: a checkpoint from tiny_gpt_forward.js (loadTinyGPT / buildTinyGPT). It is copied:
//     the trainer's policy starts from it, its reference (the KL's) stays it.
//     cfg: RLConfig's fields, by the same names (DEFAULT_CONFIG; a missing field takes the
//     default, an unknown one or a bad value throws an Error naming the field):
//       objective ("grpo" | "dr_grpo" | "dapo" | "gspo" | "cispo" | "reinforce"),
//       prompts_per_step, group_size (>= 2), lr (> 0), beta, temperature, inner_steps,
//       eps_low, eps_high (null: the objective's, TRAINER_EPS), format_weight,
//       dynamic_sampling, max_sampling_rounds, grad_clip, dr_grpo_max_len, problem_pool.
//     trainer.step() -> stats of one RL step (rl_reasoner.rl_step's, snake_case):
//       {step, reward_mean, accuracy, clip_outside, clip_clipped, len_right, len_wrong, kl,
//        kl_start, ratio_hist: {edges, counts, below, above}, loss, seconds, groups,
//        discarded_groups, zero_advantage_groups, chains: [{problem, text, reward}],
//        timing: {sample_ms, update_ms}}
//       (NaN means "nothing to average": len_right when no chain was right; reward_mean when
//       dynamic sampling kept no group, and then no update is made.)
//     trainer.evaluate(problems, samplesPerProblem = 4, {seed, temperature}) ->
//       {pass_at_1, correct: per-problem counts of right samples, samples}
//     trainer.sampleChains(problem, n, {seed, temperature}) -> n completion strings
//     trainer.reset() back to the checkpoint (weights, AdamW state, step count, seeded draws)
//     trainer.cfg (the checked config), trainer.model (the policy), trainer.stepCount
//   validateConfig(cfg) -> the full checked config;  presetConfig(objective, overrides)
//   (The held-out problems are Python's, arithmetic_task.held_out_problems, handed to the page:
//   a second list drawn here with mulberry32 would be another set of problems.)
//   OBJECTIVES, DEFAULT_CONFIG, and the pieces the parity test drives one by one:
//   grade, formatReward, isHeldOut, randomProblem, advantagesFor, policyLoss (value and
//   dL/dlogp), klTerm, clipFractions, ratioHistogram, clipGradNorm, createAdamW,
//   batchGradients, updateOnBatch, sampleGroups, chainsOfBatch.
//
// One step, as rl_step: sample prompts_per_step groups of group_size chains (seeded
// mulberry32; train-split problems), grade them (accuracy + format_weight x format), turn
// rewards into the objective's advantages, then inner_steps times: per-token log-probs with
// gradients (tiny_gpt_backward.js), loss + beta * mean k3 KL to the reference, global-norm
// clipping, one AdamW step (torch.optim.AdamW: betas 0.9/0.999, eps 1e-8, weight_decay 0).
import {requireArray, requireFloat, requireInt, requireOpenUnit} from "./checks.js";
import {chainLogprobs, zeroGrads} from "./tiny_gpt_backward.js";
import {gemmNTWasm, hasWasmGemm} from "./gemm_wasm.js";
import {copyCacheRow, encodePrompt, extractAnswer, forwardRows, mulberry32, newCache, sampleToken} from "./tiny_gpt_forward.js";

export const OBJECTIVES = ["grpo", "dr_grpo", "dapo", "gspo", "cispo", "reinforce"];
const MAX_CHAINS = 4096; // chains sampled in one step in the browser

/**
 * Each objective's trust region [eps_low, eps_high] (objectives.TRAINER_EPS, which the parity
 * test holds this to): the floor 1 - eps_low, the ceiling 1 + eps_high; null is no wall.
 */
export const TRAINER_EPS = Object.freeze({
  grpo: [0.2, 0.2], dr_grpo: [0.2, 0.2], dapo: [0.2, 0.28], gspo: [3e-3, 4e-3],
  cispo: [null, 0.28], reinforce: [null, null]
});

/** RLConfig's defaults (code/rl_reasoner.py), field by field. */
export const DEFAULT_CONFIG = Object.freeze({
  objective: "grpo", prompts_per_step: 16, group_size: 16, temperature: 1.0, lr: 1e-4,
  beta: 0.05, inner_steps: 2, eps_low: null, eps_high: null, format_weight: 0.1,
  dynamic_sampling: false, max_sampling_rounds: 4, grad_clip: 1.0, dr_grpo_max_len: 64,
  problem_pool: []
});

// ---------------------------------------------------------------- the task (arithmetic_task.py)

const PROBLEM = /^[0-9](?:[+-][0-9]){2,4}$/;
const CHAIN = /^(?:-?[0-9]+[+-][0-9]=-?[0-9]+;)+####-?[0-9]+$/;
const HELD_OUT_SHARE = 0.1;

/** A problem of the task ("7+5-3": 3-5 digits joined by + or -); throws naming `name`. */
export function requireProblem(name, problem) {
  if (typeof problem !== "string") throw new TypeError(`${name} must be a string, got ${typeof problem}`);
  if (!PROBLEM.test(problem)) {
    throw new RangeError(`${name} must be 3-5 single digits joined by + or - (like '7+5-3'), got ${JSON.stringify(problem)}`);
  }
  return problem;
}

/** The right answer, as text (arithmetic_task.answer_of). */
export function answerOf(problem) {
  requireProblem("problem", problem);
  let value = Number(problem[0]);
  for (let i = 1; i < problem.length; i += 2) value += (problem[i] === "+" ? 1 : -1) * Number(problem[i + 1]);
  return String(value);
}

/** 1 if the completion's final answer is right, else 0 (arithmetic_task.grade). */
export function grade(problem, completion) {
  return extractAnswer(completion) === answerOf(problem) ? 1 : 0;
}

/** 1 if the completion is a well-formed chain a+b=c;...;####N (arithmetic_task.format_reward). */
export function formatReward(completion) {
  return CHAIN.test(completion) ? 1 : 0;
}

// SHA-256 of an ASCII string (FIPS 180-4), synchronous: is_held_out hashes every problem drawn.
const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
]);

/** The first 32 bits of SHA-256(text), text ASCII and shorter than 56 characters. */
export function sha256First32(text) {
  const block = new Uint8Array(64);
  for (let i = 0; i < text.length; i++) block[i] = text.charCodeAt(i);
  block[text.length] = 0x80;
  const bits = text.length * 8;
  block[62] = bits >>> 8;
  block[63] = bits & 0xff;
  const w = new Uint32Array(64);
  for (let i = 0; i < 16; i++) w[i] = (block[4 * i] << 24) | (block[4 * i + 1] << 16) | (block[4 * i + 2] << 8) | block[4 * i + 3];
  const rot = (x, n) => (x >>> n) | (x << (32 - n));
  for (let i = 16; i < 64; i++) {
    const s0 = rot(w[i - 15], 7) ^ rot(w[i - 15], 18) ^ (w[i - 15] >>> 3);
    const s1 = rot(w[i - 2], 17) ^ rot(w[i - 2], 19) ^ (w[i - 2] >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
  }
  let [a, b, c, d, e, f, g, h] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const a0 = a;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i]) >>> 0;
    const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
  }
  return (a0 + a) >>> 0;
}

/** True for the ~10% of problems whose SHA-256 lands in the held-out bucket (is_held_out). */
export function isHeldOut(problem) {
  return sha256First32(requireProblem("problem", problem)) / 2 ** 32 < HELD_OUT_SHARE;
}

/** One problem of `split` ("train" | "held_out"), as random_problem draws it, from rand(). */
export function randomProblem(rand, split = "train") {
  if (split !== "train" && split !== "held_out") throw new RangeError(`split must be "train" or "held_out", got ${split}`);
  const digit = () => String(Math.floor(rand() * 10));
  for (;;) {
    const num = 3 + Math.floor(rand() * 3);
    let problem = digit();
    for (let i = 1; i < num; i++) problem += (rand() < 0.5 ? "+" : "-") + digit();
    if (isHeldOut(problem) === (split === "held_out")) return problem;
  }
}


// ---------------------------------------------------------------- the config (RLConfig)

/** The full config: defaults filled in, every field checked (an Error names the field). */
export function validateConfig(cfg = {}) {
  if (cfg === null || typeof cfg !== "object") throw new TypeError(`cfg must be an object, got ${cfg}`);
  for (const key of Object.keys(cfg)) {
    if (!(key in DEFAULT_CONFIG)) throw new RangeError(`cfg has an unknown field ${key} (known: ${Object.keys(DEFAULT_CONFIG).join(", ")})`);
  }
  const c = {...DEFAULT_CONFIG, ...cfg};
  if (!OBJECTIVES.includes(c.objective)) throw new RangeError(`objective must be one of ${OBJECTIVES.join(", ")}, got ${c.objective}`);
  for (const name of ["prompts_per_step", "inner_steps", "max_sampling_rounds"]) requireInt(name, c[name], {low: 1, high: MAX_CHAINS});
  // A group needs a baseline: at least two chains.
  requireInt("group_size", c.group_size, {low: 2, high: MAX_CHAINS});
  if (c.prompts_per_step * c.group_size > MAX_CHAINS) {
    throw new RangeError(`prompts_per_step x group_size must be <= ${MAX_CHAINS} chains, got ${c.prompts_per_step * c.group_size}`);
  }
  for (const name of ["lr", "temperature", "grad_clip"]) requireFloat(name, c[name], {low: 0, lowOpen: true});
  for (const name of ["beta", "format_weight"]) requireFloat(name, c[name], {low: 0});
  // RLConfig._resolve_trust_region: null takes the objective's; REINFORCE has no ratio.
  const [lowDefault, highDefault] = TRAINER_EPS[c.objective];
  c.eps_low = c.eps_low ?? lowDefault;
  c.eps_high = c.eps_high ?? highDefault;
  if (c.objective === "reinforce") {
    if (c.eps_low !== null || c.eps_high !== null) throw new RangeError("eps_low and eps_high must be null for reinforce (it has no ratio)");
  } else {
    if (!(c.objective === "cispo" && c.eps_low === null)) requireOpenUnit("eps_low", c.eps_low);
    requireOpenUnit("eps_high", c.eps_high);
  }
  if (typeof c.dynamic_sampling !== "boolean") throw new TypeError(`dynamic_sampling must be a boolean, got ${c.dynamic_sampling}`);
  requireInt("dr_grpo_max_len", c.dr_grpo_max_len, {low: 1, high: 4096});
  requireArray("problem_pool", c.problem_pool);
  c.problem_pool.forEach((p, i) => requireProblem(`problem_pool[${i}]`, p));
  return {...c, problem_pool: [...c.problem_pool]};
}

/** RLConfig.preset: the objective with its paper's companions (DAPO: dynamic sampling, no KL). */
export function presetConfig(objective, overrides = {}) {
  const extra = objective === "dapo" ? {dynamic_sampling: true, beta: 0} : {};
  return validateConfig({objective, ...extra, ...overrides});
}

// ---------------------------------------------------------------- advantages

// grpo._center: r - mean(r), exact zeros for a group of equal rewards.
function center(group) {
  const mean = group.reduce((s, r) => s + r, 0) / group.length;
  const tied = group.every((r) => r === group[0]);
  return group.map((r) => (tied ? 0 : r - mean));
}

/** grpo.group_relative_advantages: (r - mean) / (std + 1e-6), population std; 0 if tied. */
export function groupRelativeAdvantages(group) {
  const c = center(group);
  const std = Math.sqrt(c.reduce((s, v) => s + v * v, 0) / c.length);
  return c.map((v) => (std === 0 ? 0 : v / (std + 1e-6)));
}

/** policy_gradient.centered_advantages: r - mean(r) (Dr. GRPO's, REINFORCE's baseline). */
export function centeredAdvantages(group) {
  return center(group);
}

// ---------------------------------------------------------------- the objectives (LOSSES)
//
// Each loss is a sum over chains once its normaliser is known (N chains, M tokens of the
// batch), so each row gives chain i's share of the loss and its derivative in logp_new:
//   term(logpNew, logpOld, A, ctx) -> {value, coef}, loss = sum_i value_i,
//   coef[t] = d loss / d logpNew[t].
// PPO-style terms min(rho A, clip(rho, 1 - lo, 1 + hi) A) have derivative rho A, or 0 once the
// ratio is past the wall on the side A pushes towards (the clipped branch wins the min).

function clippedTerm(rho, A, lo, hi) {
  const clipped = Math.min(Math.max(rho, 1 - lo), 1 + hi);
  const value = Math.min(rho * A, clipped * A);
  const dead = (rho > 1 + hi && A > 0) || (rho < 1 - lo && A < 0);
  return [value, dead ? 0 : rho * A];
}

// Per-token PPO terms summed with the weight w (1 / (N |o_i|), 1 / (N max_len) or 1 / M).
function tokenPPO(logpNew, logpOld, A, w, lo, hi) {
  const coef = new Float64Array(logpNew.length);
  let value = 0;
  for (let t = 0; t < logpNew.length; t++) {
    const [v, d] = clippedTerm(Math.exp(logpNew[t] - logpOld[t]), A, lo, hi);
    value -= w * v;
    coef[t] = -w * d;
  }
  return {value, coef};
}

/** An objective's clip range [eps_low, eps_high] for the statistics; a null wall is never crossed. */
const walls = (c) => [c.eps_low ?? Infinity, c.eps_high ?? Infinity];

/** The objective switch (rl_reasoner.LOSSES): advantages, the loss's chain term, its clip range. */
export const LOSSES = {
  // -(1/N) sum_i (1/|o_i|) sum_t min(rho A, clip(rho) A)
  grpo: {
    advantages: groupRelativeAdvantages,
    term: (n, o, A, x) => tokenPPO(n, o, A, 1 / (x.N * n.length), x.cfg.eps_low, x.cfg.eps_high),
    clip: walls
  },
  // -(1/(N max_len)) sum_i sum_t min(...): a constant normaliser
  dr_grpo: {
    advantages: centeredAdvantages,
    term: (n, o, A, x) => tokenPPO(n, o, A, 1 / (x.N * x.cfg.dr_grpo_max_len), x.cfg.eps_low, x.cfg.eps_high),
    clip: walls
  },
  // -(1/M) sum_i sum_t min(...), clip-higher: every token of the batch weighs the same
  dapo: {
    advantages: groupRelativeAdvantages,
    term: (n, o, A, x) => tokenPPO(n, o, A, 1 / x.M, x.cfg.eps_low, x.cfg.eps_high),
    clip: walls
  },
  // -(1/N) sum_i min(s_i A, clip(s_i) A), s_i = exp(mean_t (logpNew - logpOld))
  gspo: {
    advantages: groupRelativeAdvantages,
    term: (n, o, A, x) => {
      const s = sequenceRatio(n, o);
      const [v, d] = clippedTerm(s, A, x.cfg.eps_low, x.cfg.eps_high);
      return {value: -v / x.N, coef: new Float64Array(n.length).fill(-d / (x.N * n.length))};
    },
    clip: walls
  },
  // -(1/M) sum_i sum_t sg(min(rho, 1 + eps_high)) A logpNew
  cispo: {
    advantages: groupRelativeAdvantages,
    term: (n, o, A, x) => {
      const coef = new Float64Array(n.length);
      let value = 0;
      for (let t = 0; t < n.length; t++) {
        const w = Math.min(Math.exp(n[t] - o[t]), 1 + x.cfg.eps_high);
        value -= (w * A * n[t]) / x.M;
        coef[t] = -(w * A) / x.M;
      }
      return {value, coef};
    },
    clip: walls
  },
  // -(1/N) sum_i A_i sum_t logpNew (on-policy, no ratio)
  reinforce: {
    advantages: centeredAdvantages,
    term: (n, o, A, x) => ({
      value: -(A * n.reduce((s, v) => s + v, 0)) / x.N,
      coef: new Float64Array(n.length).fill(-A / x.N)
    }),
    clip: () => [Infinity, Infinity]
  }
};

/** GSPO's sequence ratio exp(mean_t (logpNew - logpOld)) of one chain. */
export function sequenceRatio(logpNew, logpOld) {
  let s = 0;
  for (let t = 0; t < logpNew.length; t++) s += logpNew[t] - logpOld[t];
  return Math.exp(s / logpNew.length);
}

/** Advantages of a reward table (groups x G) for the objective, flattened (advantages_for). */
export function advantagesFor(rewards, objective) {
  if (!OBJECTIVES.includes(objective)) throw new RangeError(`objective must be one of ${OBJECTIVES.join(", ")}, got ${objective}`);
  return rewards.flatMap((group) => LOSSES[objective].advantages(group));
}

/**
 * The objective's loss on N chains (arrays of per-token log-probs), and d loss / d logpNew:
 * {value, coefs}. The batch normalisers: N chains, M tokens.
 */
export function policyLoss(objective, logpNew, logpOld, adv, cfg) {
  const x = {N: logpNew.length, M: logpNew.reduce((s, l) => s + l.length, 0), cfg};
  let value = 0;
  const coefs = logpNew.map((n, i) => {
    const r = LOSSES[objective].term(n, logpOld[i], adv[i], x);
    value += r.value;
    return r.coef;
  });
  return {value, coefs};
}

/** The k3 KL of one chain to the reference, as a share of the batch mean: {value, coef}. */
export function klTerm(logpNew, logpRef, M) {
  const coef = new Float64Array(logpNew.length);
  let value = 0;
  for (let t = 0; t < logpNew.length; t++) {
    const d = logpRef[t] - logpNew[t];
    value += Math.max(Math.expm1(d) - d, 0) / M; // k3 = e^d - 1 - d >= 0
    coef[t] = -Math.expm1(d) / M; // d k3 / d logpNew = 1 - e^d
  }
  return {value, coef};
}

/**
 * rl_reasoner.clip_fractions: how often the trust region acted. outside: the ratio left the
 * range; clipped: the clip acts (past the wall on the side A pushes; CISPO: truncated weight).
 * Units are tokens, or chains for GSPO.
 */
export function clipFractions(objective, logpNew, logpOld, adv, cfg) {
  const [low, high] = LOSSES[objective].clip(cfg);
  let count = 0, outside = 0, clipped = 0;
  const unit = (rho, A) => {
    const above = rho > 1 + high, below = rho < 1 - low;
    count++;
    if (above || below) outside++;
    if (objective === "cispo" ? above : (above && A > 0) || (below && A < 0)) clipped++;
  };
  logpNew.forEach((n, i) => {
    if (objective === "gspo") unit(sequenceRatio(n, logpOld[i]), adv[i]);
    else for (let t = 0; t < n.length; t++) unit(Math.exp(n[t] - logpOld[i][t]), adv[i]);
  });
  count = Math.max(count, 1);
  return {outside: outside / count, clipped: clipped / count};
}

/**
 * Histogram of the ratios of the last pass (tokens; chains for GSPO) on bins spanning
 * 1 +- 2.5 x the objective's widest finite clip width (0.2 if it has none).
 */
export function ratioHistogram(objective, logpNew, logpOld, cfg, bins = 20) {
  const widths = LOSSES[objective].clip(cfg).filter(Number.isFinite);
  const span = 2.5 * (widths.length ? Math.max(...widths) : 0.2);
  const edges = Array.from({length: bins + 1}, (_, k) => 1 - span + (2 * span * k) / bins);
  const counts = new Array(bins).fill(0);
  let below = 0, above = 0;
  const add = (rho) => {
    if (rho < edges[0]) below++;
    else if (rho >= edges[bins]) above++;
    else counts[Math.min(bins - 1, Math.floor(((rho - edges[0]) / (2 * span)) * bins))]++;
  };
  logpNew.forEach((n, i) => {
    if (objective === "gspo") add(sequenceRatio(n, logpOld[i]));
    else for (let t = 0; t < n.length; t++) add(Math.exp(n[t] - logpOld[i][t]));
  });
  return {edges, counts, below, above};
}

// ---------------------------------------------------------------- clipping and AdamW

/** torch.nn.utils.clip_grad_norm_: scale every gradient by min(1, max / (norm + 1e-6)); the norm. */
export function clipGradNorm(grads, maxNorm) {
  let total = 0;
  for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) total += g[i] * g[i];
  const norm = Math.sqrt(total);
  const scale = Math.min(1, maxNorm / (norm + 1e-6));
  for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) g[i] *= scale;
  return norm;
}

/**
 * torch.optim.AdamW over model.weights (updated in place, float32 as torch keeps them):
 * m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, p *= 1 - lr wd,
 * p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
 */
export function createAdamW(model, {lr, betas = [0.9, 0.999], eps = 1e-8, weightDecay = 0} = {}) {
  requireFloat("lr", lr, {low: 0, lowOpen: true});
  const [b1, b2] = betas;
  const names = Object.keys(model.weights);
  const m = Object.fromEntries(names.map((k) => [k, new Float32Array(model.weights[k].length)]));
  const v = Object.fromEntries(names.map((k) => [k, new Float32Array(model.weights[k].length)]));
  const opt = {t: 0, m, v};
  opt.step = (grads) => {
    opt.t++;
    const bc1 = 1 - b1 ** opt.t, bc2 = Math.sqrt(1 - b2 ** opt.t);
    const stepSize = lr / bc1;
    for (const k of names) {
      const p = model.weights[k], g = grads[k], mk = m[k], vk = v[k];
      for (let i = 0; i < p.length; i++) {
        if (weightDecay) p[i] *= 1 - lr * weightDecay;
        mk[i] += (g[i] - mk[i]) * (1 - b1);
        vk[i] = b2 * vk[i] + (1 - b2) * g[i] * g[i];
        p[i] -= (stepSize * mk[i]) / (Math.sqrt(vk[i]) / bc2 + eps);
      }
    }
  };
  opt.reset = () => {
    opt.t = 0;
    for (const k of names) { m[k].fill(0); v[k].fill(0); }
  };
  return opt;
}

// ---------------------------------------------------------------- one batch

/**
 * The teacher-forced chains of a batch for chainLogprobs: [BOS] prompt completion[:-1], the
 * targets being the completion's tokens (EOS included when it wrote one), as
 * tiny_gpt.completion_logprobs reads them. batch.tokens[i]: the generated token ids.
 */
export function chainsOfBatch(model, batch) {
  return batch.problems.map((p, i) => {
    const ids = encodePrompt(model, `${p}=`);
    const targets = batch.tokens[i];
    if (!targets.length) throw new Error(`tokens[${i}] is empty: a chain has at least one token`);
    return {ids: [...ids, ...targets.slice(0, -1)], start: ids.length - 1, targets};
  });
}

/**
 * loss + beta * KL of one batch and its gradient (name -> Float64Array), as rl_step's inner
 * step computes it before the clip: {loss, kl, policyLoss, logp, grads}.
 * batch: {problems, tokens, old, ref (needed when beta > 0), adv}; one entry per chain.
 */
export function batchGradients(model, batch, cfg, grads = null, chains = null) {
  chains ??= chainsOfBatch(model, batch);
  grads = zeroGrads(model, grads);
  const N = chains.length, M = chains.reduce((s, c) => s + c.targets.length, 0);
  if (cfg.objective === "dr_grpo") {
    const longest = Math.max(...chains.map((c) => c.targets.length));
    if (cfg.dr_grpo_max_len < longest) throw new RangeError(`dr_grpo_max_len must be >= the longest response (${longest}), got ${cfg.dr_grpo_max_len}`);
  }
  const row = LOSSES[cfg.objective];
  const x = {N, M, cfg};
  let loss = 0, kl = 0;
  const logp = chainLogprobs(model, chains, {
    grads,
    coefficients: (i, n) => {
      const p = row.term(n, batch.old[i], batch.adv[i], x);
      loss += p.value;
      if (batch.ref) {
        const k = klTerm(n, batch.ref[i], M);
        kl += k.value;
        if (cfg.beta > 0) for (let t = 0; t < n.length; t++) p.coef[t] += cfg.beta * k.coef[t];
      }
      return p.coef;
    }
  });
  return {loss: loss + cfg.beta * kl, policyLoss: loss, kl, logp, grads};
}

/**
 * rl_step's inner loop on one batch: inner_steps x (gradient, clip to grad_clip, AdamW step).
 * Returns the last pass's {loss (the policy loss), kl, logp} (before its update), as rl_step
 * reports them.
 */
export function updateOnBatch(model, optimizer, batch, cfg, grads = null) {
  const chains = chainsOfBatch(model, batch);
  let last = null;
  for (let k = 0; k < cfg.inner_steps; k++) {
    last = batchGradients(model, batch, cfg, grads, chains);
    grads = last.grads;
    clipGradNorm(grads, cfg.grad_clip);
    optimizer.step(grads);
  }
  return last;
}

// ---------------------------------------------------------------- sampling

function logSoftmaxAt(model, logits, token) {
  let max = -Infinity;
  for (let v = 0; v < logits.length; v++) if (v !== model.pad && v !== model.bos && logits[v] > max) max = logits[v];
  let total = 0;
  for (let v = 0; v < logits.length; v++) if (v !== model.pad && v !== model.bos) total += Math.exp(logits[v] - max);
  return logits[token] - max - Math.log(total);
}

/**
 * G chains of each problem, all decoded in lockstep (one draw of rand() per unfinished chain
 * per step, in row order), as tiny_gpt.sample: at most context - prompt tokens, stopping at
 * EOS. Returns chains {problem, text, tokens (EOS included when written), logp (the model's
 * temperature-1 log-prob of each token: Samples.logprobs), finished}.
 */
// The sampler's products out = X W^T + b in WebAssembly SIMD (float32 sums, as the backward's),
// faster than tiny_gpt_forward.js's float64 loops (scripts/bench_rl_trainer.py); chapter 2 keeps those.
const wasmProduct = (W, b, X, out, nOut, nIn, R) => gemmNTWasm(X, W, out, R, nOut, nIn, b);
const sampleProduct = hasWasmGemm ? wasmProduct : undefined;

export function sampleGroups(model, problems, G, temperature, rand) {
  const {context} = model.config;
  const rows = problems.length * G;
  const cache = newCache(model, rows);
  const chains = [];
  const logits = new Array(rows);
  problems.forEach((problem, p) => {
    const ids = encodePrompt(model, `${problem}=`);
    let last;
    for (const id of ids) last = forwardRows(model, cache, [p * G], [id], sampleProduct)[0];
    copyCacheRow(model, cache, p * G, Array.from({length: G - 1}, (_, i) => p * G + i + 1));
    for (let g = 0; g < G; g++) {
      logits[p * G + g] = last;
      chains.push({problem, text: "", tokens: [], logp: [], finished: false, done: false, room: context - ids.length});
    }
  });
  for (;;) {
    const active = [], next = [];
    chains.forEach((c, row) => {
      if (c.done) return;
      const token = sampleToken(model, logits[row], temperature, 1, rand);
      c.tokens.push(token);
      c.logp.push(logSoftmaxAt(model, logits[row], token));
      if (token === model.eos) c.done = c.finished = true;
      else {
        c.text += model.vocab[token];
        if (c.tokens.length >= c.room) c.done = true; // the context is full
        else { active.push(row); next.push(token); }
      }
    });
    if (!active.length) break;
    forwardRows(model, cache, active, next, sampleProduct).forEach((l, k) => (logits[active[k]] = l));
  }
  return chains.map(({problem, text, tokens, logp, finished}) => ({problem, text, tokens, logp, finished}));
}

// ---------------------------------------------------------------- the trainer

function cloneModel(model) {
  const weights = Object.fromEntries(Object.entries(model.weights).map(([k, w]) => [k, Float32Array.from(w)]));
  const layers = model.layers.map((_, l) => {
    const w = (s) => weights[`blocks.${l}.${s}`];
    return {
      ln1w: w("ln1.weight"), ln1b: w("ln1.bias"), qkvW: w("attn.qkv.weight"), qkvB: w("attn.qkv.bias"),
      projW: w("attn.proj.weight"), projB: w("attn.proj.bias"), ln2w: w("ln2.weight"), ln2b: w("ln2.bias"),
      fcW: w("fc.weight"), fcB: w("fc.bias"), fc2W: w("fc_proj.weight"), fc2B: w("fc_proj.bias")
    };
  });
  return {config: model.config, vocab: model.vocab, meta: model.meta, weights, layers,
    pad: model.pad, bos: model.bos, eos: model.eos, zeroBias: model.zeroBias};
}

const mean = (xs) => (xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : NaN);

/** A trainer over a copy of `model` (see the API at the top). */
export function createTrainer(model, cfg = {}, seed = 0) {
  if (!model?.weights || !model?.layers) throw new TypeError("model must be a checkpoint from loadTinyGPT / buildTinyGPT");
  cfg = validateConfig(cfg);
  requireInt("seed", seed, {low: 0, high: 2 ** 32 - 1});
  const reference = model;
  const policy = cloneModel(model);
  const optimizer = createAdamW(policy, {lr: cfg.lr});
  let grads = null, problemRand, sampleRand;
  const trainer = {cfg, model: policy, reference, stepCount: 0};

  trainer.reset = () => {
    for (const [k, w] of Object.entries(reference.weights)) policy.weights[k].set(w);
    optimizer.reset();
    trainer.stepCount = 0;
    problemRand = mulberry32(seed);
    sampleRand = mulberry32((seed ^ 0x9e3779b9) >>> 0);
  };
  trainer.reset();

  const nextProblem = () => (cfg.problem_pool.length
    ? cfg.problem_pool[Math.floor(problemRand() * cfg.problem_pool.length)]
    : randomProblem(problemRand, "train"));

  // _draw_groups: with dynamic sampling, keep the groups whose rewards differ, draw more.
  function drawGroups() {
    const kept = [];
    let discarded = 0;
    const rounds = cfg.dynamic_sampling ? cfg.max_sampling_rounds : 1;
    for (let r = 0; r < rounds && kept.length < cfg.prompts_per_step; r++) {
      const problems = Array.from({length: cfg.prompts_per_step - kept.length}, nextProblem);
      const chains = sampleGroups(policy, problems, cfg.group_size, cfg.temperature, sampleRand);
      problems.forEach((problem, p) => {
        const group = chains.slice(p * cfg.group_size, (p + 1) * cfg.group_size);
        for (const c of group) {
          c.correct = grade(problem, c.text);
          c.reward = c.correct + cfg.format_weight * formatReward(c.text);
        }
        const spread = group.some((c) => c.reward !== group[0].reward);
        if (!cfg.dynamic_sampling || spread) kept.push(group);
        else discarded++;
      });
    }
    return {groups: kept, discarded};
  }

  trainer.step = () => {
    const t0 = performance.now();
    const {groups, discarded} = drawGroups();
    const t1 = performance.now();
    trainer.stepCount++;
    const base = {step: trainer.stepCount, groups: groups.length, discarded_groups: discarded};
    if (!groups.length) {
      return {...base, loss: 0, kl: 0, kl_start: NaN, reward_mean: NaN, accuracy: NaN, clip_outside: NaN,
        clip_clipped: NaN, len_right: NaN, len_wrong: NaN, zero_advantage_groups: NaN,
        ratio_hist: null, chains: [], timing: {sample_ms: t1 - t0, update_ms: 0},
        seconds: (performance.now() - t0) / 1000};
    }
    const chains = groups.flat();
    const rewards = groups.map((g) => g.map((c) => c.reward));
    const batch = {
      problems: chains.map((c) => c.problem), tokens: chains.map((c) => c.tokens),
      old: chains.map((c) => c.logp), adv: advantagesFor(rewards, cfg.objective)
    };
    batch.ref = chainLogprobs(reference, chainsOfBatch(reference, batch));
    const last = updateOnBatch(policy, optimizer, batch, cfg, grads);
    grads = last.grads;
    const t2 = performance.now();
    const clip = clipFractions(cfg.objective, last.logp, batch.old, batch.adv, cfg);
    const right = chains.filter((c) => c.correct === 1), wrong = chains.filter((c) => c.correct === 0);
    const zeroGroups = rewards.filter((g) => g.every((r) => r === g[0])).length / rewards.length;
    return {
      ...base,
      loss: last.policyLoss,
      kl: cfg.beta > 0 ? last.kl : 0, // rl_step reports the leash's value, 0 without one
      kl_start: last.kl, // the same mean k3 to the checkpoint, always measured
      reward_mean: mean(chains.map((c) => c.reward)),
      accuracy: mean(chains.map((c) => c.correct)),
      zero_advantage_groups: zeroGroups,
      clip_outside: clip.outside,
      clip_clipped: clip.clipped,
      len_right: mean(right.map((c) => c.tokens.length)),
      len_wrong: mean(wrong.map((c) => c.tokens.length)),
      ratio_hist: ratioHistogram(cfg.objective, last.logp, batch.old, cfg),
      chains: chains.map((c) => ({problem: c.problem, text: c.text, reward: c.reward})),
      timing: {sample_ms: t1 - t0, update_ms: t2 - t1},
      seconds: (performance.now() - t0) / 1000
    };
  };

  trainer.sampleChains = (problem, n, {seed: s = 0, temperature = cfg.temperature} = {}) => {
    requireProblem("problem", problem);
    requireInt("n", n, {low: 1, high: MAX_CHAINS});
    requireFloat("temperature", temperature, {low: 0});
    return sampleGroups(policy, [problem], n, temperature, mulberry32(s)).map((c) => c.text);
  };

  trainer.evaluate = (problems, samplesPerProblem = 4, {seed: s = 0, temperature = cfg.temperature} = {}) => {
    requireArray("problems", problems, {minLength: 1});
    problems.forEach((p, i) => requireProblem(`problems[${i}]`, p));
    requireInt("samplesPerProblem", samplesPerProblem, {low: 1, high: MAX_CHAINS});
    requireFloat("temperature", temperature, {low: 0});
    const rand = mulberry32(s);
    const correct = [];
    const chunk = Math.max(1, Math.floor(256 / samplesPerProblem));
    for (let i = 0; i < problems.length; i += chunk) {
      const part = problems.slice(i, i + chunk);
      const chains = sampleGroups(policy, part, samplesPerProblem, temperature, rand);
      part.forEach((p, k) => {
        const group = chains.slice(k * samplesPerProblem, (k + 1) * samplesPerProblem);
        correct.push(group.reduce((s2, c) => s2 + grade(p, c.text), 0));
      });
    }
    return {pass_at_1: correct.reduce((a, b) => a + b, 0) / (problems.length * samplesPerProblem), correct, samples: samplesPerProblem};
  };

  return trainer;
}
