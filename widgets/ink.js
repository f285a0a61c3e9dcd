// Text colours that carry meaning in a widget (right / wrong, a warning, a highlighted series, a
// quiet aside), readable at WCAG AA (4.5:1) on both of the book's pages.
//
// No single colour can do that: against white a text colour needs a relative luminance below
// about 0.18, against darkly's #222 above about 0.25. So each is a CSS variable that the book's
// styles.css sets for `body.quarto-dark`, and the value after the comma, used everywhere else
// (the light page, or a widget shown outside the book), is the light-page colour.
// Plot accepts `var(...)` as a constant colour, so these work as a mark's `fill` too.
// Graphical marks (lines, dots, bars) keep their series colours; those need only 3:1 and are
// chosen to be seen on both pages.

export const ink = {
  good: "var(--rt-ink-good, #1b7a6e)", // right answer, valid step
  bad: "var(--rt-ink-bad, #b4432b)", // wrong answer, invalid step, a wall or a cliff
  warn: "var(--rt-ink-warn, #9a4a00)", // orange annotations
  blue: "var(--rt-ink-blue, #2c4f9e)", // blue annotations
  muted: "var(--rt-ink-muted, #5c636a)" // quiet labels
};

// A quiet cell or box that text sits on (e.g. "not read"): light grey on the light page, dark
// grey on the dark one; text on it is ink.muted.
export const mutedFill = "var(--rt-fill-muted, #e9ecef)";

// Fills dark enough for white text on either page (white on each is above 5:1).
export const solid = {good: "#1b7a6e", bad: "#b4432b"};
