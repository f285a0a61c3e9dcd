// Argument checks for the widgets' maths, one module for every *_math.js file (as code/checks.py
// is for code/). Name first, then the value, as in Python: requireInt("G", G, {low: 1}). A wrong
// type throws a TypeError, a value out of range a RangeError; the message starts with the name.

/** A finite number (not NaN or +-Infinity), optionally bounded: [low, high], or open with lowOpen / highOpen. */
export function requireFloat(name, value, {low = null, high = null, lowOpen = false, highOpen = false} = {}) {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${typeof value}`);
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`);
  if (low !== null && (value < low || (lowOpen && value === low))) {
    throw new RangeError(`${name} must be ${lowOpen ? ">" : ">="} ${low}, got ${value}`);
  }
  if (high !== null && (value > high || (highOpen && value === high))) {
    throw new RangeError(`${name} must be ${highOpen ? "<" : "<="} ${high}, got ${value}`);
  }
  return value;
}

/** An integer in [low, high] (either bound optional). */
export function requireInt(name, value, {low = null, high = null} = {}) {
  if (!Number.isInteger(value)) throw new TypeError(`${name} must be an int, got ${value}`);
  if (low !== null && value < low) throw new RangeError(`${name} must be >= ${low}, got ${value}`);
  if (high !== null && value > high) throw new RangeError(`${name} must be <= ${high}, got ${value}`);
  return value;
}

/** A probability: a number in [0, 1]. */
export function requireProb(name, value) {
  return requireFloat(name, value, {low: 0, high: 1});
}

/** A number strictly inside (0, 1), e.g. a clip width (1 - eps stays positive). */
export function requireOpenUnit(name, value) {
  return requireFloat(name, value, {low: 0, high: 1, lowOpen: true, highOpen: true});
}

/** An array with at least minLength items. */
export function requireArray(name, value, {minLength = 0} = {}) {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array, got ${typeof value}`);
  if (value.length < minLength) {
    throw new RangeError(`${name} must hold at least ${minLength === 1 ? "one item" : `${minLength} items`}, got ${value.length}`);
  }
  return value;
}
