// Lines with markers, one styled series per name: the marks Part I's recorded-curve figures share
// (chapter 1's vote budget, chapter 3's scores against temperature and against k).
//
// Each series has its own colour, dash and marker symbol. The dots are filled through the colour
// scale and shaped through the symbol scale from the same channel, so Plot's symbol legend draws
// each name beside a marker of the line's colour *and* shape: a reader who cannot tell the
// colours apart still tells the series apart.
//
//   series: [{name, color, symbol, dash?}] in legend order (dash: an SVG dash pattern, or none)
//   rows:   [{series, x, y, lo?, hi?}] (lo / hi: an interval drawn as a vertical bar)

/** The colour and symbol scales of `series` (the symbol scale carries the legend). */
export function seriesScales(series) {
  const domain = series.map((s) => s.name);
  return {
    color: {domain, range: series.map((s) => s.color)},
    symbol: {legend: true, domain, range: series.map((s) => s.symbol)}
  };
}

/** Interval bars (when `bars`), then one line per series in its dash, then every marker. */
export function seriesMarks(Plot, rows, series, {bars = false, title} = {}) {
  const marks = [];
  if (bars) {
    marks.push(Plot.ruleX(rows.filter((d) => d.lo != null && d.hi != null),
      {x: "x", y1: "lo", y2: "hi", stroke: "series", strokeOpacity: 0.7}));
  }
  for (const s of series) {
    // A dash pattern is a constant of a mark, not a channel: one line mark per series.
    marks.push(Plot.line(rows.filter((d) => d.series === s.name),
      {x: "x", y: "y", stroke: "series", strokeWidth: 2, strokeDasharray: s.dash}));
  }
  marks.push(Plot.dot(rows, {x: "x", y: "y", fill: "series", symbol: "series", r: 3.5, title}));
  return marks;
}

/** "a", "a and b", "a, b and c": a list as a sentence names it. */
export function sentenceList(items) {
  const words = items.map(String);
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
