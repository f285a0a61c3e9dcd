// The error function, one implementation for every widget (voting.js's normal CDF, the tiny
// GPT's exact GELU): Numerical Recipes' Chebyshev fit `erfcc`, fractional error < 1.2e-7
// everywhere (Abramowitz & Stegun 7.1.26 is too coarse for the tests' 1e-6 match).

/** erfc(|x|) by the Chebyshev fit. */
function erfcAbs(x) {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  return t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
    t * (-0.82215223 + t * 0.17087277)))))))));
}

/** The complementary error function erfc(x) = 1 - erf(x). */
export function erfc(x) {
  const r = erfcAbs(x);
  return x >= 0 ? r : 2 - r;
}

/** The error function erf(x), from the same fit (rounded as 1 - r, not 1 - erfc(x)). */
export function erf(x) {
  const r = erfcAbs(x);
  return x >= 0 ? 1 - r : r - 1;
}
