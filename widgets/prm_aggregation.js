// One chain's soft step scores (a stand-in for a learned PRM, prm.soft_step_rewards) and the four
// ways to collapse them into one solution score. The aggregation is computed live by
// prm_math.prmScore, which mirrors prm.prm_score.
import {AGGREGATIONS, prmScore} from "./prm_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const AGG_NOTE = {
  min: "the weakest step",
  product: "P(every step is right)",
  mean: "the average step",
  last: "the final step only"
};

export function aggregationRows(scores) {
  return AGGREGATIONS.map((agg) => ({agg, value: prmScore(scores, agg)}));
}

export function prmAggregationChart({Plot, html, width}, example, agg) {
  const steps = example.steps.map((s, i) => ({
    label: `${i + 1}. ${s}`,
    score: example.scores[i],
    verdict: example.rewards[i] ? "valid step" : "invalid step"
  }));
  const rows = aggregationRows(example.scores);
  const chosen = rows.find((r) => r.agg === agg).value;

  const stepChart = markGroups(Plot.plot({
    ariaLabel: "Score of each step",
    ariaDescription: `One bar per reasoning step, its soft score between 0 and 1, invalid steps marked with a cross, and the ${agg} aggregate as a dashed line.`,
    width: chartWidth(width),
    height: 60 + 30 * steps.length,
    marginTop: 24,
    marginLeft: 215,
    marginRight: 40,
    x: {domain: [0, 1], label: "soft step score", grid: true},
    y: {domain: steps.map((s) => s.label), label: null},
    color: {legend: true, domain: ["valid step", "invalid step"], range: ["#2a9d8f", "#e76f51"]},
    marks: [
      Plot.barX(steps, {x: "score", y: "label", fill: "verdict"}),
      Plot.text(steps, {x: "score", y: "label", text: (d) => `${d.score.toFixed(3)}${d.verdict === "invalid step" ? " ✗" : ""}`, dx: 4, textAnchor: "start"}),
      Plot.ruleX([chosen], {stroke: "currentColor", strokeWidth: 2, strokeDasharray: "5,3"}),
      // Above the bars, on the side of the line with room for it.
      Plot.text([chosen], {x: (d) => d, frameAnchor: "top", lineAnchor: "bottom", dy: -3, text: () => `${agg} = ${chosen.toFixed(3)}`,
        textAnchor: chosen > 0.5 ? "end" : "start", dx: chosen > 0.5 ? -4 : 4})
    ]
  }));
  const aggChart = markGroups(Plot.plot({
    ariaLabel: "Solution score under each aggregation",
    ariaDescription: `The chain's score under each way of aggregating its step scores, the chosen one (${agg}) darker.`,
    width: chartWidth(width),
    height: 170,
    marginLeft: 215,
    marginRight: 40,
    x: {domain: [0, 1], label: "solution score", grid: true},
    y: {domain: AGGREGATIONS, label: null, tickFormat: (a) => `${a} (${AGG_NOTE[a]})`},
    marks: [
      Plot.barX(rows, {x: "value", y: "agg", fill: (d) => (d.agg === agg ? "#4269d0" : "#b8c4e8")}),
      Plot.text(rows, {x: "value", y: "agg", text: (d) => d.value.toFixed(3), dx: 18})
    ]
  }));
  return html`<div data-widget="prm-aggregation">
    ${stepChart}
    ${aggChart}
    <p aria-live="polite">${example.name}: <b>${agg}</b> scores the chain
      <b data-readout="score" data-value="${chosen}">${chosen.toFixed(3)}</b>
      (min <span data-readout="min" data-value="${rows[0].value}">${rows[0].value.toFixed(3)}</span>,
      product <span data-readout="product" data-value="${rows[1].value}">${rows[1].value.toFixed(3)}</span>,
      mean <span data-readout="mean" data-value="${rows[2].value}">${rows[2].value.toFixed(3)}</span>,
      last <span data-readout="last" data-value="${rows[3].value}">${rows[3].value.toFixed(3)}</span>). The outcome model gives it
      <b data-readout="orm" data-value="${example.orm}">${example.orm.toFixed(1)}</b>.</p>
  </div>`;
}
