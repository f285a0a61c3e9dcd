// Chapter 11: the R1 pipeline as a clickable diagram, and accuracy against a thinking budget.
//
//   pipelineDiagram  stage boxes and arrows; clicking a stage makes it the view's value
//   stageCard        the chosen stage's run: what it did and its recorded numbers
//   budgetChart      accuracy and the token ledger at each budget, cut and extend (budget.py's records)
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/**
 * A view (use with `viewof`): one button per stage, laid out as the pipeline with its branches.
 * `stages` is [{id, title, subtitle, row, col, from: [ids]}]; the value is the chosen stage's id.
 */
export function pipelineDiagram({html}, {stages, value}) {
  const cols = Math.max(...stages.map((s) => s.col)) + 1;
  const root = html`<div data-widget="pipeline" role="group" aria-label="Stages of the R1 pipeline (pick one to see its numbers)" style="display:grid;grid-template-columns:repeat(${cols}, minmax(0, 1fr));gap:14px clamp(6px, 2vw, 22px);align-items:stretch;margin:0.5rem 0"></div>`;
  const buttons = new Map();
  const paint = () => {
    for (const [id, b] of buttons) {
      const on = id === root.value;
      b.style.background = on ? "#e07b00" : "var(--bs-body-bg, white)";
      b.style.color = on ? "black" : "inherit"; // black on the orange: 7:1; white would be 3:1
      b.setAttribute("aria-pressed", String(on));
    }
  };
  for (const s of stages) {
    const arrow = s.from.length ? `← ${s.from.map((f) => stages.find((t) => t.id === f).title).join(" + ")}` : "start";
    const b = html`<button type="button" data-stage="${s.id}" title=${`${s.subtitle} (${arrow})`}
      style="grid-row:${s.row + 1};grid-column:${s.col + 1};border:2px solid #e07b00;border-radius:10px;padding:8px;cursor:pointer;text-align:left;font-size:0.85em;line-height:1.25;min-width:0;overflow-wrap:anywhere">${s.title}</button>`;
    b.onclick = () => {
      root.value = s.id;
      paint();
      root.dispatchEvent(new Event("input", {bubbles: true}));
    };
    buttons.set(s.id, b);
    root.append(b);
  }
  // The arrows, written out: each stage and what it was made from.
  const title = (id) => stages.find((t) => t.id === id).title;
  const flow = stages.filter((s) => s.from.length).map((s) => `${s.from.map(title).join(" + ")} → ${s.title}`);
  root.append(html`<p data-flow style="grid-row:${Math.max(...stages.map((s) => s.row)) + 2};grid-column:1 / -1;font-size:0.8em;opacity:0.8;margin:0">${flow.join(" · ")}</p>`);
  root.value = value ?? stages[0].id;
  paint();
  return root;
}

/** The card of one stage: its description and a table of its recorded numbers. */
export function stageCard({html}, {stages, id}) {
  const s = stages.find((t) => t.id === id);
  if (!s) throw new RangeError(`unknown stage ${id}`);
  return html`<div data-widget="stage-card" data-stage="${s.id}" style="border-left:4px solid #e07b00;padding:0.3rem 0.9rem">
    <p><b>${s.title}</b> (${s.subtitle}): ${s.what}</p>
    <table style="font-size:0.9em" aria-live="polite"><tbody>
      ${s.numbers.map(([label, value, key]) => html`<tr><td>${label}</td><td style="text-align:right"><b data-readout="${key}" data-value=${value}>${typeof value === "number" ? value.toFixed(value >= 100 ? 0 : 3) : value}</b></td></tr>`)}
    </tbody></table>
  </div>`;
}

/** The recorded row of one model, mode and budget (budgets are the recorded grid). */
export function budgetRow(rows, model, mode, budget) {
  const row = rows.find((r) => r.model === model && r.mode === mode && r.budget === budget);
  if (!row) throw new RangeError(`no record for ${model}, ${mode}, budget ${budget}`);
  return row;
}

export function budgetChart({Plot, html, width}, {rows, model, budget, labels}) {
  const own = rows.filter((r) => r.model === model).map((r) => ({...r, forcing: r.mode === "cut" ? "cut at the budget" : "extended to the budget"}));
  const cut = budgetRow(rows, model, "cut", budget);
  const ext = budgetRow(rows, model, "extend", budget);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Accuracy against the thinking budget",
    ariaDescription: `Greedy accuracy on 500 held-out problems when thinking is cut at the budget or extended to it, for ${labels[model]}, the budget ${budget} marked.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "thinking budget (tokens before ####)"},
    y: {label: "accuracy, greedy, 500 held-out problems", domain: [0, 1], grid: true},
    color: {legend: true, domain: ["cut at the budget", "extended to the budget"], range: ["#3867d6", "#d62828"]},
    marks: [
      Plot.ruleX([budget], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(own, {x: "budget", y: "accuracy", stroke: "forcing", strokeWidth: 2.5, marker: "circle"})
    ]
  }));
  return html`<div data-widget="budget">${chart}
    <p aria-live="polite">${labels[model]}, budget ${budget}. Cut: accuracy <b data-readout="cut" data-value=${cut.accuracy}>${cut.accuracy.toFixed(3)}</b>,
      <b data-readout="cut_thinking" data-value=${cut.thinking_tokens}>${cut.thinking_tokens.toFixed(1)}</b> thinking and
      <b data-readout="cut_answer" data-value=${cut.answer_tokens}>${cut.answer_tokens.toFixed(1)}</b> answer tokens a problem.
      Extended: accuracy <b data-readout="extend" data-value=${ext.accuracy}>${ext.accuracy.toFixed(3)}</b>,
      <b data-readout="extend_thinking" data-value=${ext.thinking_tokens}>${ext.thinking_tokens.toFixed(1)}</b> thinking tokens.</p>
  </div>`;
}
