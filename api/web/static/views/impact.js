// Impact: pick symbols (or a git range) -> the impacted subgraph. Tap a node or a test to
// highlight the path that explains it; the tests to run, decisions and papers involved are
// listed beside it. The form's state lives in the URL, so the view can be shared.
import { CAP, drawGraph, spotlight } from "../graph.js";

const EDGE = "via { src kind dst }";
const QUERY = `query($targets: [String!], $repo: String, $base: String, $head: String, $depth: Int!, $limit: Int!) {
  impact(targets: $targets, repo: $repo, base: $base, head: $head, depth: $depth, limit: $limit) {
    targets depth notes truncated
    symbols { id name kind path distance isTest ${EDGE} }
    files { id name path distance }
    tests { nodeId id reason why ${EDGE} }
    entries { id displayId kind title status current relation supersededBy }
    papers { id title relation }
    changes { seeds } } }`;

export async function render(main, params, ui) {
  const { h } = ui;
  const form = impactForm(params, ui);
  if (!params.targets && !params.base) {
    main.className = "single";
    main.append(form, h("p", { class: "muted" }, "Name symbols (pkg/core.py#helper or node ids), or a git range."));
    return { shown: 0, leftOut: 0 };
  }
  const depth = Number(params.depth) || 3;
  const data = (await ui.gql(QUERY, {
    targets: params.targets ? params.targets.split(",").map((t) => t.trim()).filter(Boolean) : null,
    repo: params.base ? (params.repo || ui.repo) : null, base: params.base || null,
    head: params.head || null, depth, limit: CAP })).impact;
  const graphBox = h("div", { class: "graph", id: "impact-graph" });
  const side = h("div", { class: "panel", id: "impact-panel" });
  main.append(h("div", {}, form, graphBox), side);
  const seeds = data.changes ? data.changes.seeds : data.targets;
  const cy = await drawGraph(graphBox, elements(data, seeds),
                             (graph) => ({ name: "breadthfirst", directed: false, spacingFactor: 0.9,
                               roots: graph.collection(seeds.map((id) => graph.getElementById(id))) }));
  const highlight = (via, id) => {
    const path = cy.collection();
    for (const edge of via) {
      path.merge(cy.getElementById(`${edge.src}-${edge.kind}->${edge.dst}`));
      path.merge(cy.getElementById(edge.src)).merge(cy.getElementById(edge.dst));
    }
    path.merge(cy.getElementById(id));
    cy.elements().removeClass("path");
    path.addClass("path");
    spotlight(cy, path);
  };
  const byId = new Map(data.symbols.map((s) => [s.id, s]));
  cy.on("tap", "node", (event) => {
    const hit = byId.get(event.target.id());
    if (hit) highlight(hit.via, hit.id);
    showWhy(hit, ui);
  });
  side.append(...panel(data, ui, highlight));
  // the API cuts at the limit without counting what it cut: say so rather than guess
  return { graph: cy, shown: cy.nodes().length, leftOut: 0,
           note: data.truncated ? `cut at ${CAP} impacted nodes: more were left out` : "" };
}

function elements(data, seeds) {
  const nodes = new Map(seeds.map((id) => [id, { id, label: id.split("#").pop(), kind: "symbol", size: 30 }]));
  for (const s of data.symbols) {
    nodes.set(s.id, { id: s.id, label: s.name, kind: s.isTest ? "test" : "symbol", size: 20 - 3 * s.distance });
  }
  const edges = new Map();
  for (const s of [...data.symbols, ...data.tests]) {
    for (const e of s.via) {
      for (const end of [e.src, e.dst]) {
        if (!nodes.has(end)) nodes.set(end, { id: end, label: end.split("#").pop(), kind: "symbol", size: 14 });
      }
      const id = `${e.src}-${e.kind}->${e.dst}`;
      edges.set(id, { id, source: e.src, target: e.dst, label: e.kind, width: 1.5 });
    }
  }
  return [...[...nodes.values()].map((d) => ({ data: d })), ...[...edges.values()].map((d) => ({ data: d }))];
}

function impactForm(params, ui) {
  const { h, href } = ui;
  const field = (name, placeholder, size = 18) => h("input", { name, placeholder, size, value: params[name] || "" });
  const form = h("form", { class: "controls", id: "impact-form" },
    h("label", {}, "symbols ", field("targets", "pkg/core.py#helper, …", 40)),
    h("span", { class: "muted" }, "or git range"), field("base", "base (e.g. HEAD~3)", 14), field("head", "head (default: working tree)", 14),
    h("label", {}, "depth ", h("input", { name: "depth", type: "number", min: 1, max: 6, value: params.depth || 3, style: "width:3em" })),
    h("button", { type: "submit" }, "show impact"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    location.hash = href("impact", { ...values, repo: values.base ? ui.repo : "" });
  });
  return form;
}

function panel(data, ui, highlight) {
  const { h, nodeLink } = ui;
  return [
    h("h3", {}, `Tests to run (${data.tests.length})`),
    h("ul", { id: "impact-tests" }, data.tests.map((t) => h("li", { "data-test": t.nodeId },
      h("a", { href: "#", on: { click: (event) => { event.preventDefault(); highlight(t.via, t.id); } } }, t.nodeId),
      h("span", { class: "muted" }, ` ${t.reason}`)))),
    h("h3", {}, `Impacted symbols (${data.symbols.length})`),
    h("table", { id: "impact-symbols" }, data.symbols.map((s) => h("tr", {},
      h("td", {}, s.distance), h("td", {}, nodeLink(s.id, s.name)), h("td", { class: "muted" }, s.path)))),
    h("h3", {}, `Decisions and other records (${data.entries.length})`),
    h("ul", { id: "impact-entries" }, data.entries.map((e) => h("li", {},
      h("span", { class: `tag ${e.status}` }, `${e.kind} · ${e.status}`), nodeLink(e.id, `${e.displayId} ${e.title}`),
      e.supersededBy.length ? h("span", { class: "muted" }, ` superseded by ${e.supersededBy.join(", ")}`) : ""))),
    h("h3", {}, `Papers (${data.papers.length})`),
    h("ul", { id: "impact-papers" }, data.papers.map((p) => h("li", {}, nodeLink(p.id, p.title), ` ${p.relation}`))),
    h("div", { id: "impact-why" }),
    data.notes.length ? h("p", { class: "muted" }, data.notes.join(" · ")) : "",
  ];
}

function showWhy(hit, ui) {
  const { h, nodeLink } = ui;
  const box = document.getElementById("impact-why");
  if (!box) return;
  box.replaceChildren(...(hit ? [h("h3", {}, `Why ${hit.name}`),
    h("ol", {}, hit.via.map((e) => h("li", {}, `${e.src.split("#").pop()} ${e.kind} ${e.dst.split("#").pop()}`))),
    nodeLink(hit.id, "open its page →")] : []));
}
