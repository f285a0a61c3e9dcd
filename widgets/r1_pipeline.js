// Chapter 12: the R1 pipeline as a clickable diagram (r1_runs.stage_cards draws its data).
//
//   pipelineDiagram  stage boxes and arrows; clicking a stage makes it the view's value
//   stageCard        the chosen stage's run: what it did and its recorded numbers

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
    const b = html`<button type="button" data-stage="${s.id}" title="${`${s.subtitle} (${arrow})`}"
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
      ${s.numbers.map(([label, value, key]) => html`<tr><td>${label}</td><td style="text-align:right"><b data-readout="${key}" data-value="${value}">${typeof value === "number" ? value.toFixed(value >= 100 ? 0 : 3) : value}</b></td></tr>`)}
    </tbody></table>
  </div>`;
}
