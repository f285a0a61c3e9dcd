// One route or three: the vote curve of the single-path and the multi-path tiny reasoner.
//
// The data are data/multipath_eval.json as tiny_reasoners.vote_curve_rows reshapes it (the
// chapter ojs_defines them): for each model and temperature, cons@k for k = 1, 2, 4, ..., 128
// with its 95% bootstrap interval, the greedy accuracy, and the error correlation of two chains
// of one problem. Nothing is recomputed here: the widget only draws the recorded numbers.
//
//   voteRoutesChart({Plot, html, width}, rows, models, temperature)
// rows: [{model, temperature, k, value, lo, hi}], models: [{model, label, greedy,
// correlation: {T: rho}, same_route, cross_route}].
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";
import {ink} from "./ink.js";

// Series colours (graphical marks, 3:1 on both pages); the labels double them.
const COLOURS = {single: "#2a9d8f", multi: "#4269d0"};
// Text needs 4.5:1 on both pages (the series colours only 3:1): the theme-aware ink of each hue.
const TEXT_INK = {single: ink.good, multi: ink.blue};
const fmt = (x) => (x == null ? "—" : x.toFixed(3)); // a correlation is null where p is 0 or 1

// The record's keys are Python's str(T) ("1.0"), the temperature a JS number (String(1) is "1").
const at = (byT, temperature) =>
  byT == null ? undefined : Object.entries(byT).find(([t]) => Number(t) === temperature)?.[1];

/** The chart and its readouts for one temperature. */
export function voteRoutesChart({Plot, html, width}, rows, models, temperature) {
  const shown = rows.filter((r) => r.temperature === temperature);
  if (shown.length === 0) throw new Error(`no recorded vote curve at temperature ${temperature}`);
  const label = Object.fromEntries(models.map((m) => [m.model, m.label]));
  const last = (name) => shown.filter((r) => r.model === name).at(-1);
  const chart = markGroups(Plot.plot({
    ariaLabel: `Vote accuracy against the number of chains voted, at temperature ${temperature}`,
    ariaDescription: "Two lines, one per model, of cons@k (the chance that the vote of k sampled chains is right) for k from 1 to 128 on a log scale, each with its 95% interval, and a dashed horizontal line at each model's greedy accuracy.",
    width: chartWidth(width),
    height: 340,
    marginRight: 82, // "greedy 0.926" at 10 px, 6 px beyond the last point
    x: {type: "log", base: 2, label: "chains voted (k)", ticks: [1, 2, 4, 8, 16, 32, 64, 128], tickFormat: "d"},
    y: {label: "P(vote is right)", domain: [0, 1], grid: true},
    color: {domain: models.map((m) => label[m.model]), range: models.map((m) => COLOURS[m.model] ?? ink.muted), legend: true},
    marks: [
      Plot.areaY(shown, {x: "k", y1: "lo", y2: "hi", fill: (r) => label[r.model], fillOpacity: 0.15}),
      Plot.line(shown, {x: "k", y: "value", stroke: (r) => label[r.model], strokeWidth: 2.5}),
      Plot.dot(shown, {x: "k", y: "value", fill: (r) => label[r.model], r: 3}),
      Plot.ruleY(models, {y: "greedy", stroke: (m) => label[m.model], strokeDasharray: "5,4"}),
      Plot.text(models, {x: 128, y: "greedy", text: (m) => `greedy ${m.greedy.toFixed(3)}`, dx: 6, textAnchor: "start", fill: (m) => TEXT_INK[m.model] ?? ink.muted, fontSize: 10})
    ]
  }));
  const readouts = models.map((m) => {
    const end = last(m.model);
    const rho = at(m.correlation, temperature);
    const gap = end.value - m.greedy;
    const same = at(m.same_route, temperature), cross = at(m.cross_route, temperature);
    const routes = same == null ? "" : html`; same route
      <span data-readout="${m.model}-same-route" data-value="${same}">${fmt(same)}</span>, across routes
      <span data-readout="${m.model}-cross-route" data-value="${cross}">${fmt(cross)}</span>`;
    return html`<li><b>${m.label}</b>: cons@${end.k}
      <span data-readout="${m.model}-cons" data-value="${end.value}">${end.value.toFixed(3)}</span>
      against greedy ${m.greedy.toFixed(3)}
      (<span style="color: ${gap >= 0 ? ink.good : ink.bad}" data-readout="${m.model}-gap" data-value="${gap}">${gap >= 0 ? "+" : "−"}${Math.abs(gap).toFixed(3)}</span>);
      error correlation of two chains
      <span data-readout="${m.model}-rho" data-value="${rho}">${fmt(rho)}</span>${routes}</li>`;
  });
  return html`<div data-widget="vote-routes">${chart}
    <ul aria-live="polite" style="font-size: 0.9em">${readouts}</ul></div>`;
}
