// The process-reward maths the chapter's widgets compute live, in the reader's browser.
// Each export mirrors a function of code/prm.py and is tested against it
// (tests/test_widgets_10-process-reward-models.py):
//
//   parseStep        prm.parse_step (game24.parse_step): "a op b = c", exact
//   stepIsValid      prm.step_is_valid
//   stepRewards      prm.step_rewards      the perfect PRM, one 0/1 per step
//   ormScore         prm.orm_score         the outcome model: reads the last line only
//   firstErrorIndex  prm.first_error_index
//   prmScore         prm.prm_score         min / product / mean / last over step scores
//
// Numbers are exact rationals over BigInt, as Python's Fraction: "8 / 3 = 8/3" is checked
// exactly, never in floating point.

export const AGGREGATIONS = ["min", "product", "mean", "last"];
const MAX_STEP_CHARS = 2000; // game24.MAX_DERIVATION_CHARS
const MAX_LITERAL_DIGITS = 40;
// Python's str.isspace(): what str.strip() removes from both ends of a step.
const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

// ---------------------------------------------------------------- exact rationals

const gcd = (a, b) => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};

function rational(n, d = 1n) {
  if (d === 0n) throw new RangeError("zero denominator");
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return {n: n / g, d: d / g};
}

const equal = (a, b) => a !== null && b !== null && a.n === b.n && a.d === b.d;

/** Exact `left op right`; null for a division by zero (Python's apply_op). */
function applyOp(a, op, b) {
  if (op === "+") return rational(a.n * b.d + b.n * a.d, a.d * b.d);
  if (op === "-") return rational(a.n * b.d - b.n * a.d, a.d * b.d);
  if (op === "*") return rational(a.n * b.n, a.d * b.d);
  if (b.n === 0n) return null;
  return rational(a.n * b.d, a.d * b.n);
}

/** "8/3", "-4", "24": Python's str(Fraction). */
export function formatRational(q) {
  return q.d === 1n ? `${q.n}` : `${q.n}/${q.d}`;
}

// ---------------------------------------------------------------- the step parser

function pyStrip(text) {
  const chars = [...text];
  let start = 0;
  let end = chars.length;
  while (start < end && PY_SPACE.test(chars[start])) start++;
  while (end > start && PY_SPACE.test(chars[end - 1])) end--;
  return chars.slice(start, end).join("");
}

/**
 * Parse one step `NUMBER OP NUMBER = NUMBER` into exact rationals, like Python's `_Scanner`:
 * a number is `-?DIGITS` or `-?DIGITS/DIGITS` with no spaces inside (so in `8 / 1/3` the spaced
 * `/` is the operator), only spaces and tabs separate tokens. Throws on anything malformed.
 */
export function parseStep(step) {
  if (typeof step !== "string") throw new TypeError(`step must be a str, got ${typeof step}`);
  if ([...step].length > MAX_STEP_CHARS) throw new RangeError(`step must be at most ${MAX_STEP_CHARS} characters`);
  const text = pyStrip(step);
  let pos = 0;
  const skip = () => {
    while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  };
  const digits = () => {
    const start = pos;
    while (pos < text.length && text[pos] >= "0" && text[pos] <= "9") pos++;
    if (pos === start) throw new RangeError(`step is malformed: expected digits at column ${start}`);
    if (pos - start > MAX_LITERAL_DIGITS) throw new RangeError("step is malformed: number literal too long");
    return BigInt(text.slice(start, pos));
  };
  const number = () => {
    skip();
    const negative = text[pos] === "-";
    if (negative) pos++;
    const num = digits();
    let den = 1n;
    if (text[pos] === "/") {
      pos++;
      den = digits();
      if (den === 0n) throw new RangeError("step is malformed: zero denominator");
    }
    const q = rational(num, den);
    return negative ? {n: -q.n, d: q.d} : q;
  };
  const symbol = (allowed) => {
    skip();
    if (pos >= text.length || !allowed.includes(text[pos])) {
      throw new RangeError(`step is malformed: expected one of ${allowed} at column ${pos}`);
    }
    return text[pos++];
  };
  const left = number();
  const op = symbol("+-*/");
  const right = number();
  symbol("=");
  const result = number();
  skip();
  if (pos !== text.length) throw new RangeError(`step is malformed: unexpected text at column ${pos}`);
  return {left, op, right, result};
}

function statedResult(step) {
  try {
    return parseStep(step).result;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- the perfect PRM and the ORM

/**
 * The exact step oracle: the step parses, its arithmetic is exact, and its first operand equals
 * `prev` (the previous step's stated result, a rational; null for the first step).
 */
export function stepIsValid(step, prev = null) {
  let parsed;
  try {
    parsed = parseStep(step);
  } catch {
    return false;
  }
  if (!equal(applyOp(parsed.left, parsed.op, parsed.right), parsed.result)) return false;
  return prev === null || equal(parsed.left, prev);
}

function checkChain(chain) {
  if (!Array.isArray(chain)) throw new TypeError("chain must be a list of step strings");
  if (chain.length === 0) throw new RangeError("chain must contain at least one step");
  for (const s of chain) if (typeof s !== "string") throw new TypeError("chain must contain only str steps");
  return chain;
}

/** One 0/1 reward per step; a step after an unreadable one cannot be shown connected (0). */
export function stepRewards(chain) {
  const rewards = [];
  let prev = null;
  checkChain(chain).forEach((step, i) => {
    rewards.push(i > 0 && prev === null ? 0 : stepIsValid(step, prev) ? 1 : 0);
    prev = statedResult(step);
  });
  return rewards;
}

/** 1 if the last line's stated result equals `target` (an integer), else 0. */
export function ormScore(chain, target = 24) {
  const steps = checkChain(chain);
  return equal(statedResult(steps.at(-1)), rational(BigInt(target))) ? 1 : 0;
}

/** Index of the first step the perfect PRM rejects, or null if every step is valid. */
export function firstErrorIndex(chain) {
  const i = stepRewards(chain).indexOf(0);
  return i < 0 ? null : i;
}

// ---------------------------------------------------------------- aggregation

/**
 * Collapse per-step scores into one solution score: "min" (weakest link), "product"
 * (P(all steps correct)), "mean" or "last". `chainOrScores` is a chain (scored by the perfect PRM)
 * or an array of numbers in [0, 1]. Left-to-right sums and products, as Python's sum / math.prod.
 */
export function prmScore(chainOrScores, agg = "min") {
  if (!AGGREGATIONS.includes(agg)) throw new RangeError(`agg must be one of ${AGGREGATIONS.join(", ")}, got ${agg}`);
  if (!Array.isArray(chainOrScores) || chainOrScores.length === 0) {
    throw new RangeError("chain_or_scores must not be empty");
  }
  const scores = chainOrScores.every((x) => typeof x === "string")
    ? stepRewards(chainOrScores)
    : chainOrScores.map((x) => {
        if (typeof x !== "number" || !(x >= 0 && x <= 1)) {
          throw new RangeError(`chain_or_scores scores must be in [0, 1], got ${x}`);
        }
        return x;
      });
  if (agg === "min") return Math.min(...scores);
  if (agg === "product") return scores.reduce((a, b) => a * b, 1);
  if (agg === "mean") return scores.reduce((a, b) => a + b, 0) / scores.length;
  return scores.at(-1);
}
