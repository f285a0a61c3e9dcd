// pass@k and cons@k against k at one sampling temperature, with 95% bootstrap bands, from
// evaluation.benchmark_curves (computed in Python; this widget only draws them).
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";
export function temperatureChart({Plot, html, width}, curves, T) {
  const rows = curves.filter((r) => Math.abs(r.temperature - T) < 1e-9);
  const greedy = curves.filter((r) => r.temperature === 0 && r.metric === "pass@k" && r.k === 1)[0].value;
  const at = (metric, k) => rows.find((r) => r.metric === metric && r.k === k).value;
  const chart = markGroups(Plot.plot({
    ariaLabel: "pass@k and cons@k against k",
    ariaDescription: `pass@k and cons@k on the toy benchmark at temperature T = ${T} as the number of attempts k grows, with their uncertainty bands and greedy accuracy dashed.`,
    width: chartWidth(width),
    height: 340,
    x: {type: "log", base: 2, label: "attempts k"},
    y: {label: "score on the toy benchmark", domain: [0, 1], grid: true},
    color: {legend: true, domain: ["pass@k", "cons@k"], range: ["#4269d0", "#2a9d8f"]},
    marks: [
      Plot.ruleY([greedy], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.areaY(rows, {x: "k", y1: "lo", y2: "hi", fill: "metric", fillOpacity: 0.15}),
      Plot.line(rows, {x: "k", y: "value", stroke: "metric", strokeWidth: 2}),
      Plot.dot(rows, {x: "k", y: "value", fill: "metric", r: 3})
    ]
  }));
  return html`<div data-widget="temperature">${chart}
    <p aria-live="polite">T = ${T}: pass@1 <b data-readout="pass1" data-value="${at("pass@k", 1)}">${at("pass@k", 1).toFixed(3)}</b>,
      pass@64 <b data-readout="pass64" data-value="${at("pass@k", 64)}">${at("pass@k", 64).toFixed(3)}</b>,
      cons@64 <b data-readout="cons64" data-value="${at("cons@k", 64)}">${at("cons@k", 64).toFixed(3)}</b>.
      Dashed: greedy decoding (${greedy.toFixed(3)}).</p>
  </div>`;
}
