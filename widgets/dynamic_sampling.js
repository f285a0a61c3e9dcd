// Dynamic Sampling: the share of groups that are unanimous (all right or all wrong) and so carry
// exactly zero advantage, p^G + (1-p)^G. The thin curves are Python's
// (dapo.demonstrate_dynamic_sampling); the bold curve and the readouts are recomputed live by
// wastedFraction / keptFraction, which mirror dapo.wasted_fraction / dapo.kept_fraction.
import {keptFraction, wastedFraction} from "./dapo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const RANGE = ["#4269d0", "#3ca951", "#a463f2", "#ff725c"];

export function wastedCurve(G, steps = 200) {
  return Array.from({length: steps + 1}, (_, k) => {
    const p = k / steps;
    return {p, wasted: wastedFraction(p, G)};
  });
}

export function dynamicSamplingChart({Plot, html, width}, pythonCurves, {p, G}) {
  const sizes = [...new Set(pythonCurves.map((d) => d.group_size))];
  const thin = pythonCurves.map((d) => ({...d, series: `G = ${d.group_size}`}));
  const bold = wastedCurve(G);
  const boldColour = sizes.includes(G) ? RANGE[sizes.indexOf(G)] : "currentColor";
  const wasted = wastedFraction(p, G);
  const kept = keptFraction(p, G);
  const rollouts = 1 / kept;
  const atP = sizes.map((g) => ({p, wasted: wastedFraction(p, g), series: `G = ${g}`}));
  const chart = markGroups(Plot.plot({
    ariaLabel: "Wasted share of groups against per-sample accuracy",
    ariaDescription: `Share of groups whose answers are all right or all wrong (no gradient), p^G + (1-p)^G, against per-sample accuracy p for several group sizes; the thick curve is G = ${G} and the dot p = ${p.toFixed(2)}.`,
    width: chartWidth(width),
    height: 330,
    x: {label: "per-sample accuracy p", domain: [0, 1]},
    y: {label: "wasted fraction p^G + (1−p)^G", domain: [0, 1], grid: true, percent: false},
    color: {legend: true, domain: sizes.map((g) => `G = ${g}`), range: RANGE},
    marks: [
      Plot.ruleX([p], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(thin, {x: "p", y: "wasted", stroke: "series", strokeWidth: 1.5, strokeOpacity: 0.8}),
      // Thick, in its legend colour when Python drew that size too (else in the text's colour),
      // so the legend's swatch names a curve a reader can see on either page.
      Plot.line(bold, {x: "p", y: "wasted", stroke: boldColour, strokeWidth: 3.5}),
      Plot.dot(atP, {x: "p", y: "wasted", fill: "series", r: 3.5}),
      Plot.dot([{p, wasted}], {x: "p", y: "wasted", stroke: "currentColor", fill: "var(--bs-body-bg, white)", r: 6, strokeWidth: 2}),
      // Left of the dot past the middle, so the label never runs off the right edge.
      Plot.text([{p, wasted}], {x: "p", y: "wasted", text: () => `G = ${G}`, dx: p > 0.5 ? -10 : 10, dy: -10, textAnchor: p > 0.5 ? "end" : "start", fontWeight: "bold"})
    ]
  }));
  return html`<div data-widget="dynamic-sampling">${chart}
    <p style="font-size:0.9em">Thin: Python's curves. Thick: the group size you picked, computed in your browser.</p>
    <p aria-live="polite">At p = ${p.toFixed(2)} with G = ${G}: a group is unanimous (zero gradient)
      <b data-readout="wasted" data-value="${wasted}">${(100 * wasted).toFixed(1)}%</b> of the time and
      useful <b data-readout="kept" data-value="${kept}">${(100 * kept).toFixed(1)}%</b> of the time, so
      Dynamic Sampling draws on average <b data-readout="rollouts" data-value="${rollouts}">${rollouts.toFixed(2)}</b>
      groups for each one it keeps.</p>
  </div>`;
}
