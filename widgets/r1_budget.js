// Chapter 13: accuracy against a thinking budget, cut and extended (budget.py's recorded sweep,
// read by r1_runs.budget_rows).
//
//   budgetRow    the recorded row of one model, mode and budget
//   budgetChart  accuracy and the token ledger at each budget; `problems` is how many were measured
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/** The recorded row of one model, mode and budget (budgets are the recorded grid). */
export function budgetRow(rows, model, mode, budget) {
  const row = rows.find((r) => r.model === model && r.mode === mode && r.budget === budget);
  if (!row) throw new RangeError(`no record for ${model}, ${mode}, budget ${budget}`);
  return row;
}

export function budgetChart({Plot, html, width}, {rows, model, budget, labels, problems}) {
  const measured = `greedy, ${problems} held-out problems`;
  const own = rows.filter((r) => r.model === model).map((r) => ({...r, forcing: r.mode === "cut" ? "cut at the budget" : "extended to the budget"}));
  const cut = budgetRow(rows, model, "cut", budget);
  const ext = budgetRow(rows, model, "extend", budget);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Accuracy against the thinking budget",
    ariaDescription: `Accuracy (${measured}) when thinking is cut at the budget or extended to it, for ${labels[model]}, the budget ${budget} marked.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "thinking budget (tokens before ####)"},
    y: {label: `accuracy, ${measured}`, domain: [0, 1], grid: true},
    color: {legend: true, domain: ["cut at the budget", "extended to the budget"], range: ["#3867d6", "#d62828"]},
    marks: [
      Plot.ruleX([budget], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(own, {x: "budget", y: "accuracy", stroke: "forcing", strokeWidth: 2.5, marker: "circle"})
    ]
  }));
  return html`<div data-widget="budget">${chart}
    <p aria-live="polite">${labels[model]}, budget ${budget}. Cut: accuracy <b data-readout="cut" data-value="${cut.accuracy}">${cut.accuracy.toFixed(3)}</b>,
      <b data-readout="cut_thinking" data-value="${cut.thinking_tokens}">${cut.thinking_tokens.toFixed(1)}</b> thinking and
      <b data-readout="cut_answer" data-value="${cut.answer_tokens}">${cut.answer_tokens.toFixed(1)}</b> answer tokens a problem.
      Extended: accuracy <b data-readout="extend" data-value="${ext.accuracy}">${ext.accuracy.toFixed(3)}</b>,
      <b data-readout="extend_thinking" data-value="${ext.thinking_tokens}">${ext.thinking_tokens.toFixed(1)}</b> thinking tokens.</p>
  </div>`;
}
