// Chapter 3's recorded scores as static curves (computed in Python; drawn here, nothing recomputed).
//
//   scoresByTemperatureChart  pass@1, pass@K and cons@K of the toy benchmark against the sampling
//                             temperature (evaluation.benchmark_curves; K the largest k recorded)
//   tinyReasonerScoresChart   the tiny reasoner's pass@k and cons@k against k on a log axis, one
//                             colour per temperature, and its greedy accuracy
//                             (data/tiny_reasoner_eval.json, the tiny_reasoner_eval job)
//
// Both take the rows [{temperature, metric: "pass@k" | "cons@k", k, value, lo, hi}], each value with
// its 95% bootstrap interval over problems, drawn as a bar.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";
import {ink} from "./ink.js";
import {sentenceList, seriesMarks, seriesScales} from "./series.js";

const PALETTE = ["#4269d0", "#e76f51", "#2a9d8f", "#9b5de5"];
const SYMBOLS = ["circle", "square", "diamond", "triangle", "star", "cross", "wye"];
const DASH = {"pass@k": undefined, "cons@k": "6,4"};
const fmt = (d) => `${d.y.toFixed(3)} [${d.lo.toFixed(3)}, ${d.hi.toFixed(3)}]`;

export function scoresByTemperatureChart({Plot, html, width}, curves) {
  const K = Math.max(...curves.map((r) => r.k));
  const picks = [
    {metric: "pass@k", k: 1, dash: undefined},
    {metric: "pass@k", k: K, dash: "6,4"},
    {metric: "cons@k", k: K, dash: "2,3"}
  ].map((s, i) => ({...s, name: s.metric.replace("k", String(s.k)), color: PALETTE[i], symbol: SYMBOLS[i]}));
  const points = picks.flatMap((s) => curves
    .filter((r) => r.metric === s.metric && r.k === s.k)
    .sort((a, b) => a.temperature - b.temperature)
    .map((r) => ({series: s.name, x: r.temperature, y: r.value, lo: r.lo, hi: r.hi})));
  const chart = markGroups(Plot.plot({
    ariaLabel: `pass@1, pass@${K} and cons@${K} against the sampling temperature`,
    ariaDescription: `Line chart of ${sentenceList(picks.map((s) => s.name))} on the toy benchmark against the sampling temperature, with error bars.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 45,
    x: {label: "temperature T"},
    y: {label: "score", domain: [0, 1], grid: true},
    ...seriesScales(picks),
    marks: seriesMarks(Plot, points, picks, {bars: true, title: (d) => `${d.series} at T = ${d.x}: ${fmt(d)}`})
  }));
  return html`<div data-widget="score-by-temperature" data-series="${picks.length}">${chart}
    <p style="font-size: 0.9em">Solid: pass@1; dashed: pass@${K}; dotted: cons@${K}. Bars: 95%
      bootstrap intervals over problems.</p></div>`;
}

/** setup: {problems, ks} (the evaluation's size and the k it recorded, for the axes). */
export function tinyReasonerScoresChart({Plot, html, width}, curves, {problems, ks}) {
  const temps = [...new Set(curves.map((r) => r.temperature))].sort((a, b) => a - b);
  const series = [];
  let colour = 0;
  for (const T of temps) {
    if (T === 0) {
      // Greedy: the same chain every time, so cons@k = pass@k = its accuracy; one line.
      series.push({name: "greedy", temperature: T, metric: "pass@k", color: ink.muted, dash: "2,3"});
      continue;
    }
    const color = PALETTE[colour++ % PALETTE.length];
    for (const metric of ["pass@k", "cons@k"]) {
      series.push({name: `${metric}, T = ${T.toFixed(1)}`, temperature: T, metric, color, dash: DASH[metric]});
    }
  }
  series.forEach((s, i) => { s.symbol = SYMBOLS[i % SYMBOLS.length]; });
  const points = series.flatMap((s) => curves
    .filter((r) => r.temperature === s.temperature && r.metric === s.metric)
    .sort((a, b) => a.k - b.k)
    .map((r) => ({series: s.name, x: r.k, y: r.value, lo: r.lo, hi: r.hi})));
  const sampled = temps.filter((T) => T !== 0);
  const chart = markGroups(Plot.plot({
    ariaLabel: "The tiny reasoner's pass@k and cons@k against the number of attempts k",
    ariaDescription: `Line chart, on a logarithmic axis of attempts k, of the tiny reasoner's pass@k and cons@k on held-out problems at temperature${sampled.length === 1 ? "" : "s"} ${sentenceList(sampled)}${temps.includes(0) ? " and of its greedy accuracy" : ""}, with error bars.`,
    width: chartWidth(width),
    height: 380,
    marginLeft: 45,
    // Base 2 (positions are the same in any base): d3 leaves a base-10 log axis's 8 unlabelled.
    x: {type: "log", base: 2, label: "attempts k", ticks: ks, tickFormat: "d"},
    y: {label: `score on ${problems} held-out problems`, domain: [0, 1], grid: true},
    ...seriesScales(series),
    marks: seriesMarks(Plot, points, series, {bars: true, title: (d) => `${d.series}, k = ${d.x}: ${fmt(d)}`})
  }));
  return html`<div data-widget="tiny-reasoner-scores" data-series="${series.length}">${chart}
    <p style="font-size: 0.9em">Solid: pass@k; dashed: cons@k; dotted: greedy decoding. Bars: 95%
      bootstrap intervals over problems.</p></div>`;
}
