// One breadth-first Tree-of-Thoughts search on a Game-of-24 puzzle, recorded in Python by
// tree_of_thoughts.bfs_trace and stepped through one level of thoughts at a time.
//
// A tree is {puzzle, beam, error, solution, levels}; levels[d - 1] lists the distinct states
// created by thought d as rows [parent, expr, state, score, kept, onPath, winnable]: `parent`
// indexes the previous level (the root for thought 1), `score` is the judge's verdict (at thought 3
// the exact check "is it 24?"), `kept` means carried in the beam (at thought 3: the answer),
// `winnable` is the exact oracle's verdict, so a winnable state scored 0 is the judge's mistake.
// No maths happens here: the widget lays out and counts what Python recorded.

const BIG = 17; // vertical room for a labelled node (kept, or on the winning path)
const SMALL = 3.2; // and for every other node
const COLORS = {pruned: "#b7bcc4", kept: "#4269d0", missed: "#ef8a2f", path: "#e3a008"};

export function findTree(trees, puzzle, beam, error) {
  const tree = trees.find((t) => t.puzzle === puzzle && t.beam === beam && Math.abs(t.error - error) < 1e-9);
  if (!tree) throw new Error(`no recorded search for ${puzzle}, b=${beam}, error ${error}`);
  return tree;
}

/** Node records with screen positions: depth on x, and on y each level fanned out by parent. */
export function layoutTree(tree) {
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
  for (const [d, nodes] of ordered.entries()) {
    const scale = d === 0 ? 1 : height / natural[d];
    let y = 0;
    for (const n of nodes) {
      const slot = (n.label ? BIG : SMALL) * scale;
      n.x = d;
      n.y = d === 0 ? height / 2 : y + slot / 2;
      y += slot;
    }
  }
  for (let d = 1; d < ordered.length; d++) {
    const parents = new Map(levels[d - 1].map((n) => [n.index, n]));
    for (const n of ordered[d]) {
      const p = parents.get(n.parent);
      [n.px, n.py] = [p.x, p.y];
    }
  }
  return {nodes: ordered.flat(), height};
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

export function searchTree({Plot, html}, tree, shown = 3) {
  const {nodes, height} = layoutTree(tree);
  const visible = nodes.filter((n) => n.depth <= shown);
  const inner = visible.filter((n) => n.depth > 0);
  const last = (n) => n.depth === 3;
  const missed = inner.filter((n) => !last(n) && n.winnable && !(n.score > 0));
  const winner = inner.filter((n) => last(n) && n.onPath);
  const labelled = visible.filter((n) => n.label && !(last(n) && !n.onPath));
  const summary = levelSummary(tree);
  const headers = ["puzzle", "thought 1", "thought 2", "thought 3: = 24?"].slice(0, shown + 1)
    .map((text, x) => ({x, text}));

  const chart = Plot.plot({
    width: 860,
    height: height + 50,
    marginTop: 30,
    marginLeft: 20,
    marginRight: 10,
    x: {axis: null, domain: [0, 3.95]},
    y: {axis: null, domain: [-8, height + 8], reverse: true},
    marks: [
      Plot.text(headers, {x: "x", frameAnchor: "top", dy: -22, text: "text", fontWeight: "bold", textAnchor: "start", dx: -6}),
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
        fill: (n) => (n.depth > 0 && !(n.score > 0) ? "white" : n.onPath ? COLORS.path : COLORS.kept),
        title: (n) => (n.depth ? `${n.expr} → ${n.state}\nkept in the beam${n.score > 0 ? "" : " (judged hopeless: kept to fill the beam)"}` : n.state)
      }),
      Plot.dot(winner, {x: "x", y: "y", r: 11, symbol: "star", fill: COLORS.path, stroke: "#7a5200"}),
      ...[
        {nodes: labelled.filter((n) => n.depth === 0), dx: -8, dy: -15, text: (n) => n.state},
        {nodes: labelled.filter((n) => n.depth > 0 && !last(n)), dx: 9, dy: 0, text: (n) => `${n.expr}  [${n.state}]`},
        {nodes: labelled.filter((n) => last(n)), dx: 15, dy: 0, text: (n) => n.expr}
      ].map(({nodes, dx, dy, text}) => Plot.text(nodes, {
        x: "x", y: "y", dx, dy, text, textAnchor: "start", fontSize: 11,
        stroke: "white", strokeWidth: 4, paintOrder: "stroke",
        fill: (n) => (n.onPath ? "#7a5200" : "#1d3a8a")
      }))
    ]
  });

  const lines = summary.slice(0, shown).map((s) =>
    s.depth < 3
      ? html`<li>Thought ${s.depth}: ${s.states} distinct states, ${s.winnable} still winnable; the judge
          called ${s.judgedWinnable} winnable${s.missed ? ", and " : ""}${s.missed
            ? html`<span style="color:${COLORS.missed}">gave up on ${s.missed} winnable ${s.missed === 1 ? "one" : "ones"}</span>` : ""}; kept ${s.kept}.</li>`
      : html`<li>Thought 3: ${s.states} final numbers checked exactly;
          ${tree.solution ? "the first 24 wins." : "none is 24, so the search fails."}</li>`
  );
  const totalMissed = summary.slice(0, 2).reduce((a, s) => a + s.missed, 0);
  const solved = tree.solution ? 1 : 0;
  return html`<div data-widget="search-tree">
    ${chart}
    <div style="font-size:0.85em">
      <span style="color:${COLORS.kept}">●</span> kept in the beam
      <span style="color:${COLORS.kept}; margin-left:1em">○</span> kept, though judged hopeless
      <span style="color:${COLORS.pruned}; margin-left:1em">●</span> pruned
      <span style="color:${COLORS.missed}; margin-left:1em">○</span> winnable but judged hopeless
      <span style="color:${COLORS.path}; margin-left:1em">★</span> the winning derivation
    </div>
    <ul style="font-size:0.9em">${lines}</ul>
    <p>Beam b = ${tree.beam}, judge error rate ${tree.error}, showing
      <span data-readout="shown" data-value=${shown}>${shown}</span> of 3 thoughts. States per level
      <span data-readout="nodes1" data-value=${summary[0].states}>${summary[0].states}</span> /
      <span data-readout="nodes2" data-value=${summary[1].states}>${summary[1].states}</span> /
      <span data-readout="nodes3" data-value=${summary[2].states}>${summary[2].states}</span>, kept
      <span data-readout="kept1" data-value=${summary[0].kept}>${summary[0].kept}</span> /
      <span data-readout="kept2" data-value=${summary[1].kept}>${summary[1].kept}</span>; winnable states
      the judge gave up on: <span data-readout="missed" data-value=${totalMissed}>${totalMissed}</span>.
      Solved: <b data-readout="solved" data-value=${solved}>${solved ? "yes" : "no"}</b>
      <code data-readout="derivation" data-value="${tree.solution ?? ""}">${tree.solution ?? ""}</code></p>
  </div>`;
}
