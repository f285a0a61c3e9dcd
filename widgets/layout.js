// How wide a widget draws. The {ojs} cell passes Quarto's `width` builtin (the width of the
// page's text column, which follows the window) in the widget's first argument, next to Plot
// and html. Plot draws an SVG of a fixed width and lets the browser scale it to fit, so a chart
// drawn for 640 px and shown on a 350 px phone would have 5 px tick labels: draw it for the
// column instead, never wider than the widget was designed for.

export const MIN_CHART_WIDTH = 280; // below this a chart keeps this width and its box scrolls

/** The width to give Plot: the column's `width` capped at the design width, or the design width
 * when no width was passed (a test calling the widget directly). */
export function chartWidth(width, designWidth = 640) {
  if (!(Number.isFinite(width) && width > 0)) return designWidth;
  return Math.max(MIN_CHART_WIDTH, Math.min(designWidth, Math.floor(width)));
}
