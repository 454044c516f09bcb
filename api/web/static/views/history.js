// History: decisions, failures and patterns on a time line (x = when each became true, one
// lane per kind), arrows for supersession chains, and an as-of slider that asks the API what
// was in force then (the bi-temporal model: entries not in force at that time are faded).
import { CAP, drawGraph } from "../graph.js";

const KINDS = ["decisions", "failures", "patterns"];
const PER_KIND = CAP / 3;
const FIELDS = `totalCount edges { node { id: key displayId kind title status validFrom validTo recordedAt
  supersedes(first: 5) { edges { node { id: key displayId } } } } }`;
const ALL = `query($first: Int!) { ${KINDS.map((k) => `${k}(current: false, first: $first) { ${FIELDS} }`).join("\n")} }`;
const IN_FORCE = `query($at: DateTime!, $first: Int!) {
  ${KINDS.map((k) => `${k}(asOf: $at, first: $first) { edges { node { id: key } } }`).join("\n")} }`;

export async function render(main, params, ui) {
  const { h, href } = ui;
  const data = await ui.gql(ALL, { first: PER_KIND });
  const entries = KINDS.flatMap((k) => data[k].edges.map((e) => e.node));
  const total = KINDS.reduce((sum, k) => sum + data[k].totalCount, 0);
  const times = entries.map((e) => Date.parse(e.validFrom || e.recordedAt)).filter(Number.isFinite);
  const now = Date.now();
  const first = times.length ? Math.min(...times) : now - 86400000;
  const at = params.asOf ? Date.parse(params.asOf) : now;
  const inForce = await ui.gql(IN_FORCE, { at: new Date(at).toISOString().replace("Z", ""), first: PER_KIND });
  const live = new Set(KINDS.flatMap((k) => inForce[k].edges.map((e) => e.node.id)));

  const slider = h("input", { type: "range", id: "history-as-of", min: first, max: now, step: 1000, value: at, style: "width:40em" });
  slider.addEventListener("change", () => {
    location.hash = href("history", { asOf: new Date(Number(slider.value)).toISOString() });
  });
  const graphBox = h("div", { class: "graph", id: "history-graph" });
  const side = h("div", { class: "panel", id: "history-panel" });
  main.append(h("div", {},
    h("div", { class: "controls" }, "as of ", slider, h("strong", { id: "history-at" }, new Date(at).toISOString().slice(0, 19).replace("T", " ")),
      h("span", { class: "muted" }, ` · ${live.size} in force then`)), graphBox), side);
  side.append(h("h3", {}, `Decisions, failures, patterns (${entries.length})`), timeline(entries, live, ui));
  if (!entries.length) {
    graphBox.append(h("p", { class: "muted", style: "padding:1em" }, "no decisions, failures or patterns recorded yet (vgdb decide …)"));
    return { shown: 0, leftOut: 0 };
  }
  const cy = await drawGraph(graphBox, elements(entries, first, now), { name: "preset" });
  cy.nodes().forEach((n) => { if (!live.has(n.id())) n.addClass("dim"); });
  cy.on("tap", "node", (event) => { location.hash = href("node", { id: event.target.id() }); });
  return { graph: cy, shown: entries.length, leftOut: total - entries.length };
}

function elements(entries, first, now) {
  const span = Math.max(1, now - first);
  const lanes = { decision: 0, failure: 1, pattern: 2 };
  const ids = new Set(entries.map((e) => e.id));
  const nodes = entries.map((e, i) => ({
    data: { id: e.id, label: `${e.displayId} ${e.title}`.slice(0, 40), kind: "entry", size: 16 },
    position: { x: 1000 * (Date.parse(e.validFrom || e.recordedAt) - first) / span,
                y: 160 * (lanes[e.kind] ?? 3) + 26 * (i % 5) } }));
  const edges = entries.flatMap((e) => e.supersedes.edges.filter((s) => ids.has(s.node.id)).map((s) => ({
    data: { id: `${e.id}->${s.node.id}`, source: e.id, target: s.node.id, label: "supersedes", width: 2 } })));
  return [...nodes, ...edges];
}

function timeline(entries, live, ui) {
  const { h, nodeLink } = ui;
  const sorted = [...entries].sort((a, b) => String(b.validFrom || "").localeCompare(String(a.validFrom || "")));
  return h("ul", { class: "timeline", id: "history-timeline" }, sorted.map((e) => h("li", { "data-entry": e.id },
    h("span", { class: "muted" }, (e.validFrom || "").slice(0, 10), " "),
    h("span", { class: `tag ${e.status}` }, `${e.kind} · ${e.status}${live.has(e.id) ? "" : " · not in force then"}`),
    nodeLink(e.id, `${e.displayId} ${e.title}`),
    e.supersedes.edges.length ? h("span", { class: "muted" }, " supersedes ",
      ...e.supersedes.edges.map((s) => nodeLink(s.node.id, s.node.displayId || s.node.id))) : "")));
}
