// Best-of-N reranking in miniature: how often each strategy's pick is a fully valid solution, as
// the number of candidates N grows. The curves are Python's (prm.demonstrate_prm); `ceiling` is the
// share of right-answer candidates whose reasoning is also sound, the level an answer-only judge
// settles at when it picks among right answers at random. No maths happens here.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export const RERANK_STRATEGIES = [
  {key: "prm", name: "PRM (every step)"},
  {key: "orm", name: "ORM (final answer)"},
  {key: "majority", name: "majority vote"}
];

export function rerankRows(curves) {
  return curves.n.flatMap((n, i) => RERANK_STRATEGIES.map((s) => ({n, strategy: s.name, value: curves[s.key][i]})));
}

export function rerankChart({Plot, html, width}, demo, ceiling, n) {
  const rows = rerankRows(demo.curves);
  const i = demo.curves.n.indexOf(n);
  const at = (key) => demo.curves[key][i];
  const names = RERANK_STRATEGIES.map((s) => s.name);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Share of fully valid selections against the number of candidates",
    ariaDescription: `Probability that the selected solution is fully valid as the number of candidates N grows, one line per selection rule, N = ${n} and the ceiling marked.`,
    width: chartWidth(width),
    height: 340,
    x: {type: "log", base: 2, label: "candidates per problem N", domain: [1, Math.max(...demo.curves.n)]},
    y: {label: "P(selected solution is fully valid)", domain: [0, 1], grid: true},
    color: {legend: true, domain: names, range: ["#2a9d8f", "#e76f51", "#8d99ae"]},
    marks: [
      Plot.ruleY([ceiling], {stroke: "#e76f51", strokeDasharray: "4,3"}),
      Plot.ruleX([n], {stroke: "#bbb"}),
      Plot.line(rows, {x: "n", y: "value", stroke: "strategy", strokeWidth: 2}),
      Plot.dot(rows, {x: "n", y: "value", fill: "strategy", r: (d) => (d.n === n ? 5 : 3)})
    ]
  }));
  const mix = demo.pool_mix;
  return html`<div data-widget="rerank">${chart}
    <p aria-live="polite">Pool of ${demo.pool_size}: ${mix.valid} valid, ${mix.flawed} flawed (right answer, broken step),
      ${mix.wrong} wrong. Best of N = <b data-readout="n" data-value="${n}">${n}</b> over ${demo.trials} draws:
      PRM <b data-readout="prm" data-value="${at("prm")}">${at("prm").toFixed(3)}</b>,
      ORM <b data-readout="orm" data-value="${at("orm")}">${at("orm").toFixed(3)}</b>,
      majority <b data-readout="majority" data-value="${at("majority")}">${at("majority").toFixed(3)}</b>.
      The dashed line is the share of right-answer candidates whose reasoning is also valid,
      <span data-readout="ceiling" data-value="${ceiling}">${ceiling.toFixed(3)}</span>: where a judge
      that reads only answers settles.</p>
  </div>`;
}
