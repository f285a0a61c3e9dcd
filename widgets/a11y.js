// Two repairs for screen readers that every widget and chapter shares.
//
// markGroups(chart): Observable Plot names each mark's <g> ("bar", "line", "x-axis tick"), but a
// <g> has no ARIA role, so assistive technology and axe-core treat those names as labels of
// nothing (Plot issue #1760). role="group" makes each named mark a group a screen reader can step
// into, under the chart's own ariaLabel / ariaDescription.
//
// labelRange(form): Inputs.range draws a number box and a slider; its visible <label> names only
// the number box, so the slider has no accessible name. The slider gets the label's text.

export function markGroups(chart) {
  for (const g of chart.querySelectorAll("svg g[aria-label]")) {
    if (!g.hasAttribute("role")) g.setAttribute("role", "group");
  }
  return chart;
}

export function labelRange(form) {
  const label = form.querySelector("label");
  const slider = form.querySelector("input[type=range]");
  if (label && slider && !slider.hasAttribute("aria-label")) {
    slider.setAttribute("aria-label", label.textContent.trim());
  }
  return form;
}
