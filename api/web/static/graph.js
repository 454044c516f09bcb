// Shared Cytoscape.js set-up: one style sheet for every view, a layout that resolves when
// it has run, and the cap on how many nodes a view may draw (the rest are counted as left out).
import cytoscape from "./vendor/cytoscape.esm.min.js";

export const CAP = 300;

const STYLE = [
  { selector: "node", style: {
    "label": "data(label)", "font-size": 10, "text-valign": "bottom", "text-margin-y": 2,
    "background-color": "#6aa7ff", "width": "data(size)", "height": "data(size)",
    "color": "#1d2330", "text-wrap": "ellipsis", "text-max-width": 140 } },
  { selector: "node[kind = 'test']", style: { "background-color": "#22c55e", "shape": "round-rectangle" } },
  { selector: "node[kind = 'file']", style: { "background-color": "#a78bfa", "shape": "round-rectangle" } },
  { selector: "node[kind = 'entry']", style: { "background-color": "#f59e0b", "shape": "diamond" } },
  { selector: "node[kind = 'paper']", style: { "background-color": "#14b8a6", "shape": "hexagon" } },
  { selector: "node.focus", style: { "border-width": 4, "border-color": "#1d2330" } },
  { selector: "node.cycle", style: { "background-color": "#ef4444" } },
  { selector: "node.dim, edge.dim", style: { "opacity": 0.15 } },
  { selector: "edge", style: {
    "width": "data(width)", "curve-style": "bezier", "target-arrow-shape": "triangle",
    "line-color": "#9ca3af", "target-arrow-color": "#9ca3af", "arrow-scale": 0.8,
    "label": "data(label)", "font-size": 8, "color": "#6b7280" } },
  { selector: "edge.cycle", style: { "line-color": "#ef4444", "target-arrow-color": "#ef4444" } },
  { selector: "edge.path", style: { "line-color": "#f97316", "target-arrow-color": "#f97316", "width": 4 } },
  { selector: "node.path", style: { "border-width": 3, "border-color": "#f97316" } },
];

/** Draw ``elements`` into ``container`` and resolve with the graph once its layout has run
 * (``layout``: options, or a function of the graph that returns them). */
export function drawGraph(container, elements, layout = {}) {
  // constructed with "preset" (keeps given positions; the default would run a grid first)
  const cy = cytoscape({ container, elements, style: STYLE, minZoom: 0.1, maxZoom: 1.6,
                         layout: { name: "preset" } });
  const options = { name: "cose", animate: false, randomize: false, numIter: 400,
                    nodeDimensionsIncludeLabels: false, fit: true, padding: 30,
                    ...(typeof layout === "function" ? layout(cy) : layout) };
  if (cy.edges().length > 60) cy.edges().style("label", "");  // unreadable at that density
  return new Promise((resolve) => {
    const run = cy.layout(options);
    run.one("layoutstop", () => resolve(cy));
    run.run();
  });
}

/** The first ``cap`` items, and how many were left out. */
export function capped(items, cap = CAP) {
  return { kept: items.slice(0, cap), leftOut: Math.max(0, items.length - cap) };
}

/** Dim everything but ``keep`` (a collection); an empty selection undims all. */
export function spotlight(cy, keep) {
  cy.elements().removeClass("dim");
  if (keep && keep.length) cy.elements().not(keep).addClass("dim");
}
