// Overlong reward shaping: DAPO's soft length penalty (a ramp from 0 to -1 over the last L_cache
// tokens before L_max) against the hard cliff it replaces. overlongPenalty mirrors
// dapo.overlong_penalty; the grey dots are Python's ramp at the paper's setting
// (dapo.demonstrate_overlong with L_max = 20480, L_cache = 4096), left in place as a reference.
import {overlongPenalty} from "./dapo_math.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const X_MAX = 40960;

export function overlongCurve(maxLen, cacheLen) {
  const start = maxLen - cacheLen;
  const xs = [0, start, maxLen, maxLen + 1e-6, X_MAX];
  return xs.map((length) => ({
    length,
    soft: overlongPenalty(length, maxLen, cacheLen),
    hard: length <= maxLen ? 0 : -1
  }));
}

export function overlongChart({Plot, html, width}, pythonRamp, {maxLen, cacheLen, length}) {
  const cache = Math.min(cacheLen, maxLen); // the ramp cannot be wider than the cap
  const curve = overlongCurve(maxLen, cache);
  const start = maxLen - cache;
  const soft = overlongPenalty(length, maxLen, cache);
  const hard = length <= maxLen ? 0 : -1;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Length penalty against response length",
    ariaDescription: `DAPO's soft overlong penalty, 0 up to ${start} tokens and -1 at ${maxLen}, against the hard cliff of -1 once a response is truncated (dashed); the chosen length ${length} marked.`,
    width: chartWidth(width),
    height: 300,
    marginLeft: 50,
    x: {label: "response length |y| (tokens)", domain: [0, X_MAX]},
    y: {label: "length penalty added to the reward", domain: [-1.15, 0.15], grid: true},
    marks: [
      Plot.rect([{x1: start, x2: maxLen}], {x1: "x1", x2: "x2", y1: -1.15, y2: 0.15, fill: "#ef8a2f", fillOpacity: 0.12}),
      Plot.dot(pythonRamp, {x: "length", y: "penalty", r: 2.5, fill: "#bbb"}),
      Plot.line(curve, {x: "length", y: "hard", stroke: "#888", strokeDasharray: "6,4", strokeWidth: 1.5}), // mid grey: seen on both pages
      Plot.line(curve, {x: "length", y: "soft", stroke: "#ef8a2f", strokeWidth: 2.5}),
      Plot.ruleX([length], {stroke: "#4269d0"}),
      Plot.dot([{length, soft}], {x: "length", y: "soft", r: 5, fill: "#4269d0"}),
      Plot.text([{x: (start + maxLen) / 2, y: 0.08}], {x: "x", y: "y", text: () => "ramp", fill: ink.warn})
    ]
  }));
  return html`<div data-widget="overlong">${chart}
    <p style="font-size:0.9em">Orange: DAPO's soft penalty. Dashed: the hard cliff (−1 once truncated).
      Grey dots: Python's ramp at L_max = 20480, L_cache = 4096.</p>
    <p aria-live="polite">The ramp starts at <b data-readout="start" data-value="${start}">${start}</b> tokens and reaches −1 at
      <b data-readout="cap" data-value="${maxLen}">${maxLen}</b>. A ${length}-token response gets
      <b data-readout="penalty" data-value="${soft}">${soft.toFixed(3)}</b> from the ramp
      (the hard cliff would give <b data-readout="hard" data-value="${hard}">${hard.toFixed(0)}</b>).</p>
  </div>`;
}
