// How often a majority vote is right, as curves computed in Python and only drawn here.
//
//   voteBudgetChart  chapter 1: the vote's accuracy against the tokens spent on the question, one
//                    line per per-chain accuracy (reasoning.plurality_vote_prob, D = 4)
//   realVoteChart    chapter 2: the vote over n of the tiny reasoner's real chains (cons@n from
//                    data/tiny_reasoner_eval.json, with its 95% interval) beside two simulated
//                    curves and the greedy accuracy
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";
import {ink} from "./ink.js";
import {sentenceList, seriesMarks, seriesScales} from "./series.js";

// Series colours (graphical marks, 3:1 on both pages); a symbol or a dash doubles each.
const COLOURS = ["#e76f51", "#4269d0", "#2a9d8f"];
const SYMBOLS = ["circle", "square", "triangle"];
const percent = (p) => `${Math.round(100 * p)}%`;

/** rows: [{accuracy, n, tokens, value}], one row per per-chain accuracy and number of chains. */
export function voteBudgetChart({Plot, html, width}, rows) {
  const accuracies = [...new Set(rows.map((r) => r.accuracy))].sort((a, b) => a - b);
  const name = (p) => `one chain right ${percent(p)} of the time`;
  const series = accuracies.map((p, i) => ({name: name(p), color: COLOURS[i % COLOURS.length], symbol: SYMBOLS[i % SYMBOLS.length]}));
  const points = rows.map((r) => ({series: name(r.accuracy), x: r.tokens, y: r.value, n: r.n}));
  const chart = markGroups(Plot.plot({
    ariaLabel: "Accuracy of a majority vote against the tokens spent on the question",
    ariaDescription: `Line chart of the probability that the majority answer is right against the tokens spent on the question, one line for each per-chain accuracy (${sentenceList(accuracies.map(percent))}); every line rises towards 1 as more chains are voted, the least accurate one slowest.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 45,
    x: {label: "tokens spent on the question (chains x tokens per chain)", grid: true},
    y: {label: "P(majority answer is right)", domain: [0, 1], grid: true},
    ...seriesScales(series),
    marks: seriesMarks(Plot, points, series, {title: (d) => `${d.series}: ${d.n} chains, ${d.x} tokens, ${d.y.toFixed(3)}`})
  }));
  return html`<div data-widget="vote-budget" data-series="${series.length}">${chart}</div>`;
}

// The real curve and the two simulations: colour, dash and a label at the line's end.
const REAL = {color: "#2a9d8f", end: "real"};
const SIM = {color: "#e76f51", dash: "6,4", end: "one p"};
const SIM_PP = {color: "#4269d0", dash: "2,3", end: "own p"};

/** rows: [{n, value, lo, hi, simulated, simulated_per_problem}]; p1: the accuracy of one chain
 * (as the legend quotes it); D: the wrong answers of the simulation; greedy: greedy accuracy. */
export function realVoteChart({Plot, html, width}, {rows, p1, D, greedy}) {
  const names = {real: "real chains", sim: `simulated: p = ${p1}, D = ${D}`, pp: `simulated: per-problem p, D = ${D}`};
  const lines = [
    {key: "real", style: REAL, y: "value", width: 3},
    {key: "sim", style: SIM, y: "simulated", width: 2},
    {key: "pp", style: SIM_PP, y: "simulated_per_problem", width: 2}
  ];
  const nMin = Math.min(...rows.map((r) => r.n));
  const nMax = Math.max(...rows.map((r) => r.n));
  const last = rows.find((r) => r.n === nMax);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Vote accuracy of the tiny reasoner's real chains against the number voted",
    ariaDescription: `Line chart of the probability that a vote over n of the tiny reasoner's real chains is right, for n from ${nMin} to ${nMax}, with its 95% interval, beside two simulated curves (one per-sample accuracy for every problem, and each problem's own accuracy) and a dotted line at greedy accuracy.`,
    width: chartWidth(width),
    height: 360,
    marginLeft: 45,
    marginRight: 50,
    x: {label: "chains voted (n)", domain: [nMin, nMax]},
    y: {label: "P(vote is right)", domain: [0, 1], grid: true},
    color: {legend: true, domain: lines.map((l) => names[l.key]), range: lines.map((l) => l.style.color)},
    marks: [
      Plot.areaY(rows, {x: "n", y1: "lo", y2: "hi", fill: REAL.color, fillOpacity: 0.2}),
      Plot.ruleY([greedy], {stroke: ink.muted, strokeDasharray: "2,3", strokeWidth: 1.5}),
      Plot.text([greedy], {x: nMin, y: (d) => d, text: () => "greedy", dy: -7, textAnchor: "start", fill: ink.muted}),
      ...lines.map((l) => Plot.line(rows, {x: "n", y: l.y, stroke: () => names[l.key], strokeWidth: l.width, strokeDasharray: l.style.dash})),
      // Each line is named at its end, so the three differ by more than their colour and dash.
      Plot.text(lines, {x: nMax, y: (l) => last[l.y], text: (l) => l.style.end, dx: 6, textAnchor: "start", fill: "currentColor"})
    ]
  }));
  return html`<div data-widget="real-vote">${chart}
    <p style="font-size: 0.9em">Solid: the real chains, their 95% interval shaded; dashed: simulated
      with one accuracy for every problem; dotted: simulated with each problem's own accuracy;
      grey dotted line: greedy decoding.</p></div>`;
}
