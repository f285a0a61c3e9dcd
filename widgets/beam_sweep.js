// Solve rate against beam width under a judge that gives up on winnable states. Lines: every
// solvable puzzle (data/beam_sweep.json, the graph's beam_sweep job); dots: the
// chapter's 20 demo puzzles, searched live in Python (tree_of_thoughts.solve_rate_sweep). The
// oracle (error rate 0) is the ceiling. No maths happens here: every number is Python's.
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const pick = (records, rate, b) =>
  records.find((r) => Math.abs(r.error_rate - rate) < 1e-9 && r.beam_width === b);

export function beamSweepChart({Plot, html, width}, full, demo, {errorRate, beam}) {
  const rates = [...new Set(full.map((r) => r.error_rate))].sort((a, b) => a - b);
  const widths = [...new Set(full.map((r) => r.beam_width))].sort((a, b) => a - b);
  const label = (r) => (r === 0 ? "oracle (error 0)" : `error ${r}`);
  const lines = full.map((r) => ({...r, series: label(r.error_rate), chosen: Math.abs(r.error_rate - errorRate) < 1e-9}));
  const dots = demo.filter((r) => Math.abs(r.error_rate - errorRate) < 1e-9);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Puzzles solved against beam width",
    ariaDescription: `Share of the Game-of-24 puzzles the beam search solves at each beam width, one line per judge error rate: the chosen rate (${errorRate}) in bold, a perfect judge dashed.`,
    width: chartWidth(width),
    height: 400,
    marginRight: 110,
    x: {label: "beam width b", domain: [widths[0] - 0.3, widths.at(-1) + 0.3], ticks: widths},
    y: {label: "puzzles solved", domain: [0, 1.02], grid: true, tickFormat: "%"},
    marks: [
      Plot.ruleX([beam], {stroke: "#e3e6ea", strokeWidth: 8}),
      Plot.line(lines.filter((d) => !d.chosen), {x: "beam_width", y: "solve_rate", z: "series", stroke: "#c9ced6", strokeWidth: 1.5}),
      Plot.line(lines.filter((d) => d.error_rate === 0), {x: "beam_width", y: "solve_rate", stroke: "#2a9d8f", strokeWidth: 2, strokeDasharray: "6,3"}),
      Plot.line(lines.filter((d) => d.chosen), {x: "beam_width", y: "solve_rate", stroke: "#4269d0", strokeWidth: 3}),
      Plot.dot(dots, {x: "beam_width", y: "solve_rate", fill: "#ef8a2f", r: 4.5, title: (d) => `${d.solved} of ${d.total} demo puzzles`}),
      Plot.text(lines.filter((d) => d.beam_width === widths.at(-1)), {
        x: "beam_width", y: "solve_rate", text: "series", dx: 8, textAnchor: "start",
        fill: (d) => (d.chosen ? ink.blue : d.error_rate === 0 ? ink.good : ink.muted)
      })
    ]
  }));
  const fullAt = pick(full, errorRate, beam);
  const demoAt = pick(demo, errorRate, beam);
  const greedy = pick(full, errorRate, widths[0]);
  const widest = pick(full, errorRate, widths.at(-1));
  const oracle = pick(full, 0, beam);
  return html`<div data-widget="beam-sweep">${chart}
    <p aria-live="polite">Blue line: all ${fullAt.total} solvable puzzles under a judge with error rate ${errorRate};
      orange dots: the ${demoAt.total} demo puzzles; dashed: the oracle ceiling. At b = ${beam} the
      search solves <b data-readout="full" data-value="${fullAt.solve_rate}">${(100 * fullAt.solve_rate).toFixed(1)}%</b>
      of all puzzles (<span data-readout="demo" data-value="${demoAt.solve_rate}">${(100 * demoAt.solve_rate).toFixed(0)}%</span>
      of the demo set; oracle <span data-readout="oracle" data-value="${oracle.solve_rate}">${(100 * oracle.solve_rate).toFixed(0)}%</span>).
      From a greedy chain to b = ${widths.at(-1)}:
      <span data-readout="greedy" data-value="${greedy.solve_rate}">${(100 * greedy.solve_rate).toFixed(1)}%</span> →
      <span data-readout="widest" data-value="${widest.solve_rate}">${(100 * widest.solve_rate).toFixed(1)}%</span>.</p>
  </div>`;
}
