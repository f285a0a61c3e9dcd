// One breadth-first Tree-of-Thoughts search on a Game-of-24 puzzle, recorded in Python by
// tree_of_thoughts.bfs_trace and stepped through one level of thoughts at a time.
//
// A tree is {puzzle, beam, error, solution, levels}; levels[d - 1] lists the distinct states
// created by thought d as rows [parent, expr, state, score, kept, onPath, winnable]: `parent`
// indexes the previous level (the root for thought 1), `score` is the judge's verdict (at thought 3
// the exact check "is it 24?"), `kept` means carried in the beam (at thought 3: the answer),
// `winnable` is the exact oracle's verdict, so a winnable state scored 0 is the judge's mistake.
// No maths happens here: the widget lays out and counts what Python recorded.
import {ink} from "./ink.js";
import {markGroups} from "./a11y.js";

const FONT = 12; // label size in px: the chart is drawn at its own width, so this is what a reader sees
const BIG = 2 * FONT + 8; // vertical room for a labelled node (kept, or on the winning path): two lines
const SMALL = 3.2; // and for every other node
const GAP = 9; // from a node's dot to its label
const MIN_FAN = 20; // narrowest room for the edges from one thought to the next
const COLORS = {pruned: "#b7bcc4", kept: "#4269d0", missed: "#ef8a2f", path: "#e3a008"};

export function findTree(trees, puzzle, beam, error) {
  const tree = trees.find((t) => t.puzzle === puzzle && t.beam === beam && Math.abs(t.error - error) < 1e-9);
  if (!tree) throw new Error(`no recorded search for ${puzzle}, b=${beam}, error ${error}`);
  return tree;
}

/** Width in px of `text` in the chart's font (Plot's default family), measured when a canvas exists. */
function textWidth(text, weight = "normal") {
  const ctx = typeof document === "undefined" ? null : (textWidth.ctx ??= document.createElement("canvas").getContext("2d"));
  if (!ctx) return 0.62 * FONT * text.length;
  ctx.font = `${weight} ${FONT}px system-ui, sans-serif`;
  return ctx.measureText(text).width;
}

/** A labelled node's text: the thought on one line, the numbers it leaves on the next. */
function labelText(n) {
  if (n.depth === 0) return n.state;
  return n.depth === 3 ? n.expr : `${n.expr}\n[${n.state}]`;
}

/**
 * Node records with screen positions (px). Each thought is a column: a lane of dots and their
 * labels, then the room where the edges to the next thought fan out. The lane is as wide as the
 * longest label (or header) in it, and a kept node's edges leave from the end of its label, so
 * no edge ever crosses a label. On y each level is fanned out by parent.
 */
export function layoutTree(tree, width = 860, headers = []) {
  const levels = [[{depth: 0, index: 0, expr: "", state: tree.puzzle, kept: true, onPath: tree.solution !== null, label: true}]];
  tree.levels.forEach((rows, d) => {
    const nodes = rows.map(([parent, expr, state, score, kept, onPath, winnable], index) => ({
      depth: d + 1, index, parent, expr, state, score, kept: !!kept, onPath: !!onPath, winnable: !!winnable,
      label: d + 1 < 3 ? !!kept : !!onPath
    }));
    levels.push(nodes);
  });
  // order: thought 1 as proposed; deeper levels grouped under their parents
  const ordered = levels.map((nodes) => nodes.slice());
  for (let d = 1; d < ordered.length; d++) {
    const rank = new Map(ordered[d - 1].map((n, i) => [n.index, i]));
    ordered[d].sort((a, b) => rank.get(a.parent) - rank.get(b.parent) || a.index - b.index);
  }
  const natural = ordered.map((nodes) => nodes.reduce((h, n) => h + (n.label ? BIG : SMALL), 0));
  const height = Math.max(260, ...natural.slice(1));
  // columns: lane d holds the dots and labels of thought d; the fans share what is left. A
  // header sits above the edges, so it only has to end before the next column's header.
  const lanes = ordered.map((nodes) => Math.max(
    0, ...nodes.filter((n) => n.label).flatMap((n) => labelText(n).split("\n").map((line) => textWidth(line)))
  ) + GAP + 4);
  lanes[3] += 6; // the winner's star is wider than a dot
  const heads = lanes.map((_, d) => Math.max(...(headers[d] ?? "").split("\n").map((line) => textWidth(line, "bold"))) + 12);
  const tail = Math.max(lanes[3], heads[3]);
  const fan = Math.max(MIN_FAN, (width - 12 - lanes.slice(0, 3).reduce((a, b) => a + b, 0) - tail) / 3);
  const columns = [];
  for (let d = 0, x = 6; d < lanes.length; d++) {
    columns.push({x, out: x + lanes[d]});
    x += Math.max(lanes[d] + fan, heads[d]);
  }
  for (const [d, nodes] of ordered.entries()) {
    const scale = d === 0 ? 1 : height / natural[d];
    let y = 0;
    for (const n of nodes) {
      const slot = (n.label ? BIG : SMALL) * scale;
      n.x = columns[d].x;
      n.out = n.label ? columns[d].out : n.x; // where the edges to its children start
      n.text = n.label ? labelText(n) : "";
      n.y = d === 0 ? height / 2 : y + slot / 2;
      y += slot;
    }
  }
  for (let d = 1; d < ordered.length; d++) {
    const parents = new Map(levels[d - 1].map((n) => [n.index, n]));
    for (const n of ordered[d]) {
      const p = parents.get(n.parent);
      [n.px, n.py] = [p.out, p.y];
    }
  }
  // too narrow for 12 px labels and MIN_FAN: the chart keeps its size and scrolls in its box
  return {nodes: ordered.flat(), height, columns, width: Math.max(width, columns[3].x + tail + 6)};
}

/** Per thought level: how many states, how many winnable, what the judge said, what was kept. */
export function levelSummary(tree) {
  return tree.levels.map((rows, d) => ({
    depth: d + 1,
    states: rows.length,
    winnable: rows.filter((r) => r[6]).length,
    judgedWinnable: rows.filter((r) => r[3] > 0).length,
    missed: rows.filter((r) => r[6] && !(r[3] > 0)).length,
    kept: rows.filter((r) => r[4]).length
  }));
}

export function searchTree({Plot, html, width = 860}, tree, shown = 3) {
  const titles = ["puzzle", "thought 1", "thought 2", "thought 3:\n= 24?"];
  const {nodes, height, columns, width: chartWidth} = layoutTree(tree, width, titles);
  const visible = nodes.filter((n) => n.depth <= shown);
  const inner = visible.filter((n) => n.depth > 0);
  const last = (n) => n.depth === 3;
  const missed = inner.filter((n) => !last(n) && n.winnable && !(n.score > 0));
  const winner = inner.filter((n) => last(n) && n.onPath);
  const labelled = visible.filter((n) => n.label && !(last(n) && !n.onPath));
  const summary = levelSummary(tree);
  const headers = titles.slice(0, shown + 1).map((text, d) => ({x: columns[d].x, text}));

  const chart = markGroups(Plot.plot({
    ariaLabel: "Beam search tree of one Game-of-24 puzzle",
    ariaDescription: `The states the search reaches at each level with beam b = ${tree.beam} and judge error rate ${tree.error}, the kept states above the dropped ones.`,
    width: chartWidth,
    height: height + 50,
    marginTop: 2 * FONT + 14,
    marginLeft: 0,
    marginRight: 0,
    x: {type: "identity", axis: null}, // layoutTree places every node in px
    style: chartWidth > width ? {maxWidth: "none"} : {}, // never scaled down: it scrolls instead
    y: {axis: null, domain: [-8, height + 8], reverse: true},
    marks: [
      Plot.text(headers, {x: "x", frameAnchor: "top", dy: -8, lineAnchor: "bottom", text: "text", fontWeight: "bold", textAnchor: "start", dx: -4, fontSize: FONT}),
      Plot.link(inner.filter((n) => !n.kept), {x1: "px", y1: "py", x2: "x", y2: "y", stroke: COLORS.pruned, strokeOpacity: 0.35}),
      Plot.link(inner.filter((n) => n.kept && !n.onPath), {x1: "px", y1: "py", x2: "x", y2: "y", stroke: COLORS.kept, strokeWidth: 1.5}),
      Plot.link(inner.filter((n) => n.onPath), {x1: "px", y1: "py", x2: "x", y2: "y", stroke: COLORS.path, strokeWidth: 3.5}),
      Plot.dot(inner.filter((n) => !n.kept), {x: "x", y: "y", r: 2.2, fill: COLORS.pruned,
        title: (n) => `${n.expr} → ${n.state}\npruned${n.winnable ? " (winnable)" : ""}`}),
      Plot.dot(missed, {x: "x", y: "y", r: 4, stroke: COLORS.missed, strokeWidth: 2, fill: "none",
        title: (n) => `${n.expr} → ${n.state}\nwinnable, but the judge gave up on it`}),
      Plot.dot(visible.filter((n) => n.kept && !last(n)), {
        x: "x", y: "y", r: 5, strokeWidth: 2,
        stroke: (n) => (n.onPath ? COLORS.path : COLORS.kept),
        fill: (n) => (n.depth > 0 && !(n.score > 0) ? "var(--bs-body-bg, white)" : n.onPath ? COLORS.path : COLORS.kept),
        title: (n) => (n.depth ? `${n.expr} → ${n.state}\nkept in the beam${n.score > 0 ? "" : " (judged hopeless: kept to fill the beam)"}` : n.state)
      }),
      Plot.dot(winner, {x: "x", y: "y", r: 11, symbol: "star", fill: COLORS.path, stroke: "#7a5200"}),
      ...[
        {nodes: labelled.filter((n) => !last(n)), dx: GAP, dy: 0, text: "text"},
        {nodes: labelled.filter((n) => last(n)), dx: GAP + 6, dy: 0, text: "text"}
      ].map(({nodes, dx, dy, text}) => Plot.text(nodes, {
        x: "x", y: "y", dx, dy, text, textAnchor: "start", fontSize: FONT, lineHeight: 1.1,
        stroke: "var(--bs-body-bg, white)", strokeWidth: 4, paintOrder: "stroke", // a halo of the page colour over the edges
        fill: (n) => (n.onPath ? ink.warn : ink.blue)
      }))
    ]
  }));

  const lines = summary.slice(0, shown).map((s) =>
    s.depth < 3
      ? html`<li>Thought ${s.depth}: ${s.states} distinct states, ${s.winnable} still winnable; the judge
          called ${s.judgedWinnable} winnable${s.missed ? ", and " : ""}${s.missed
            ? html`<span style="color:${ink.warn}">gave up on ${s.missed} winnable ${s.missed === 1 ? "one" : "ones"}</span>` : ""}; kept ${s.kept}.</li>`
      : html`<li>Thought 3: ${s.states} final numbers checked exactly;
          ${tree.solution ? "the first 24 wins." : "none is 24, so the search fails."}</li>`
  );
  const totalMissed = summary.slice(0, 2).reduce((a, s) => a + s.missed, 0);
  const solved = tree.solution ? 1 : 0;
  return html`<div data-widget="search-tree">
    <div style="overflow-x: auto">${chart}</div>
    <div style="font-size:0.85em">
      <span data-swatch style="color:${COLORS.kept}">●</span> kept in the beam
      <span data-swatch style="color:${COLORS.kept}; margin-left:1em">○</span> kept, though judged hopeless
      <span data-swatch style="color:${COLORS.pruned}; margin-left:1em">●</span> pruned
      <span data-swatch style="color:${COLORS.missed}; margin-left:1em">○</span> winnable but judged hopeless
      <span data-swatch style="color:${COLORS.path}; margin-left:1em">★</span> the winning derivation
    </div>
    <ul style="font-size:0.9em">${lines}</ul>
    <p aria-live="polite">Beam b = ${tree.beam}, judge error rate ${tree.error}, showing
      <span data-readout="shown" data-value="${shown}">${shown}</span> of 3 thoughts. States per level
      <span data-readout="nodes1" data-value="${summary[0].states}">${summary[0].states}</span> /
      <span data-readout="nodes2" data-value="${summary[1].states}">${summary[1].states}</span> /
      <span data-readout="nodes3" data-value="${summary[2].states}">${summary[2].states}</span>, kept
      <span data-readout="kept1" data-value="${summary[0].kept}">${summary[0].kept}</span> /
      <span data-readout="kept2" data-value="${summary[1].kept}">${summary[1].kept}</span>; winnable states
      the judge gave up on: <span data-readout="missed" data-value="${totalMissed}">${totalMissed}</span>.
      Solved: <b data-readout="solved" data-value="${solved}">${solved ? "yes" : "no"}</b>
      <code data-readout="derivation" data-value="${tree.solution ?? ""}">${tree.solution ?? ""}</code></p>
  </div>`;
}
