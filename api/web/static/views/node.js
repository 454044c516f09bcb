// Node page: a symbol or file, its neighbourhood as a graph (filters by edge kind and depth,
// at most CAP nodes: the rest are counted), its provenance as a timeline (commits with
// authors, renames, sessions, decisions and their status, papers) and its source span.
import { CAP, drawGraph } from "../graph.js";

// edge kind -> the connections that follow it: [field, direction, type of the far end]
// per node type (a far end of type Node may be a symbol or a file)
const KINDS = {
  CALLS: { Symbol: [["calls", "out", "Node"], ["calledBy", "in", "Symbol"]] },
  INHERITS: { Symbol: [["inherits", "out", "Node"], ["inheritedBy", "in", "Symbol"]] },
  TESTS: { Symbol: [["tests", "out", "Symbol"], ["testedBy", "in", "Symbol"]] },
  IMPORTS: { File: [["imports", "out", "Node"], ["importedBy", "in", "File"]],
             Symbol: [["importedBy", "in", "File"]] },
  CONTAINS: { File: [["contains", "out", "Symbol"]],
              Symbol: [["contains", "out", "Symbol"], ["containedIn", "in", "Node"]] },
  ABOUT: { Entry: [["about", "out", "Node"]], Symbol: [["entries", "in", "Entry"]],
           File: [["entries", "in", "Entry"]] },
  SUPERSEDES: { Entry: [["supersedes", "out", "Entry"], ["supersededBy", "in", "Entry"]] },
};
const DEFAULT_KINDS = ["CALLS", "INHERITS", "TESTS", "IMPORTS"];
const FILE_KINDS = ["IMPORTS", "CONTAINS"];
const ENTRY_KINDS = ["ABOUT", "SUPERSEDES"];
const PER_EDGE = 40;
const FRAGMENTS = { Symbol: "... on Symbol { id: key name kind file isTest }",
                    File: "... on File { id: key path isTest }",
                    Entry: "... on Entry { id: key displayId title }" };

function brief(type) {
  return `__typename ${type === "Node" ? Object.values(FRAGMENTS).join(" ") : FRAGMENTS[type]}`;
}

const HEAD = `query($id: ID!) { node(id: $id) { __typename
  ... on Symbol { id: key name qualname kind file signature docstring startLine endLine language isTest }
  ... on File { id: key path language loc isTest }
  ... on Entry { id: key displayId kind title status content }
  ... on Session { id: key title kind: agent }
  ... on Commit { id: key title: summary kind: sha }
  ... on Paper { id: key title kind }
  ... on Community { id: key title: name } } }`;
const SOURCE = `query($id: String!) { sourceText(node: $id, maxLines: 200) {
  text startLine endLine truncated matchesGraph notes } }`;
const PROVENANCE = `query($id: String!) { provenance(node: $id) {
  commits { sha summary kind at author path via }
  sessions { id title relation at by }
  entries { id displayId kind title status relation at current }
  papers { id title relation location }
  lineage { other direction reason at by } } }`;

function neighbourQuery(kinds) {
  const fields = { Symbol: new Map(), File: new Map(), Entry: new Map() };
  for (const kind of kinds) {
    for (const [type, pairs] of Object.entries(KINDS[kind] || {})) {
      for (const [field, , far] of pairs) fields[type].set(field, far);
    }
  }
  const part = (type) => [...fields[type]].map(([f, far]) =>
    `${f}(first: ${PER_EDGE}) { totalCount edges { node { ${brief(far)} } } }`).join("\n");
  return `query($ids: [ID!]!) { nodes(ids: $ids) { __typename
    ... on Symbol { id: key ${part("Symbol")} } ... on File { id: key ${part("File")} }
    ... on Entry { id: key ${part("Entry")} } } }`;
}

export async function render(main, params, ui) {
  const { h, href } = ui;
  if (!params.id) throw new Error("no node given (#/node?id=...)");
  const defaults = { file: FILE_KINDS, entry: ENTRY_KINDS }[params.id.split(":")[0]] || DEFAULT_KINDS;
  const kinds = (params.kinds || defaults.join(",")).split(",").filter((k) => KINDS[k]);
  const depth = Math.min(3, Math.max(1, Number(params.depth) || 1));
  // all at once: the node, its provenance, its code and the walk of its neighbourhood
  const [head, provenance, source, hood] = await Promise.all([
    ui.gql(HEAD, { id: ui.globalId(params.id) }).then((d) => d.node),
    ui.gql(PROVENANCE, { id: params.id }).then((d) => d.provenance).catch(() => null),
    ui.gql(SOURCE, { id: params.id }).then((d) => d.sourceText).catch(() => null),
    neighbourhood(ui, params.id, kinds, depth),
  ]);
  if (!head) throw new Error(`no node ${params.id}`);
  Object.assign(hood.elements[0].data, { label: label(head), kind: kindOf(head) });

  const graphBox = h("div", { class: "graph", id: "node-graph" });
  const side = h("div", { class: "panel", id: "node-panel" });
  main.append(h("div", {}, filters(ui, params, kinds, depth), graphBox), side);
  side.append(...describe(head, ui), ...code(source, ui), ...timeline(provenance, ui));

  // rings by distance from the node: linear time, where a force layout of 300 nodes takes ~1 s
  const cy = await drawGraph(graphBox, hood.elements, {
    name: "concentric", concentric: (n) => 10 - n.data("distance"), levelWidth: () => 1,
    minNodeSpacing: 12, avoidOverlap: true });
  cy.getElementById(head.id).addClass("focus");
  cy.on("tap", "node", (event) => {
    if (event.target.id() !== head.id) location.hash = href("node", { id: event.target.id(), kinds: params.kinds, depth: params.depth });
  });
  return { graph: cy, shown: cy.nodes().length, leftOut: hood.leftOut };
}

/** Breadth-first over the chosen edge kinds, one GraphQL round trip a level. */
async function neighbourhood(ui, id, kinds, depth) {
  const nodes = new Map([[id, { id, label: id, kind: "symbol", size: 30, distance: 0 }]]);
  const edges = new Map();
  let frontier = [id], leftOut = 0;
  const query = neighbourQuery(kinds);
  for (let level = 0; level < depth && frontier.length; level++) {
    const found = (await ui.gql(query, { ids: frontier.map(ui.globalId) })).nodes.filter(Boolean);
    const next = [];
    for (const item of found) {
      for (const kind of kinds) {
        for (const [field, direction] of (KINDS[kind][item.__typename] || [])) {
          const connection = item[field];
          if (!connection) continue;
          leftOut += connection.totalCount - connection.edges.length;
          for (const { node } of connection.edges) {
            if (!node.id) { leftOut += 1; continue; }  // a kind this page does not draw: counted
            if (!nodes.has(node.id)) {
              if (nodes.size >= CAP) { leftOut += 1; continue; }
              nodes.set(node.id, { id: node.id, label: label(node), kind: kindOf(node), size: 18,
                                   distance: level + 1 });
              next.push(node.id);
            }
            const [source, target] = direction === "out" ? [item.id, node.id] : [node.id, item.id];
            const id = `${source}-${kind}->${target}`;
            edges.set(id, { id, source, target, label: kind, width: 1.5 });
          }
        }
      }
    }
    frontier = next;
  }
  return { elements: [...[...nodes.values()].map((data) => ({ data })),
                      ...[...edges.values()].map((data) => ({ data }))], leftOut };
}

function label(node) {
  const text = node.path || node.name || node.title || node.id;
  return node.displayId ? `${node.displayId} ${text}` : text;
}

function kindOf(node) {
  if (node.__typename === "File") return "file";
  if (node.__typename === "Entry") return "entry";
  return node.isTest ? "test" : "symbol";
}

function filters(ui, params, kinds, depth) {
  const { h, href } = ui;
  const go = (nextKinds, nextDepth) => {
    location.hash = href("node", { id: params.id, kinds: nextKinds.join(","), depth: nextDepth });
  };
  return h("div", { class: "controls", id: "node-filters" },
    ...Object.keys(KINDS).map((kind) => h("label", {},
      h("input", { type: "checkbox", name: kind, checked: kinds.includes(kind), on: { change: (event) => {
        go(event.target.checked ? [...kinds, kind] : kinds.filter((k) => k !== kind), depth);
      } } }), ` ${kind}`)),
    h("label", {}, "depth ", h("select", { id: "node-depth", on: { change: (event) => go(kinds, event.target.value) } },
      [1, 2, 3].map((d) => h("option", { value: d, selected: d === depth }, d)))));
}

function describe(node, ui) {
  const { h, href } = ui;
  const parts = [h("h2", { id: "node-title" }, label(node)),
                 h("p", { class: "muted" }, `${node.__typename} · ${node.kind || node.language || ""} · ${node.id}`)];
  if (node.__typename === "Symbol") {
    parts.push(h("p", { id: "node-span" }, "source span: ",
      h("a", { href: href("node", { id: node.file }) }, node.file.replace(/^file:[^/]*\//, "")), `, lines ${node.startLine}–${node.endLine}`));
    if (node.signature) parts.push(h("pre", {}, node.signature));
    if (node.docstring) {
      parts.push(h("details", {}, h("summary", {}, node.docstring.split("\n")[0].slice(0, 80)),
                   h("pre", {}, node.docstring)));
    }
  } else if (node.__typename === "File") {
    parts.push(h("p", { id: "node-span" }, `${node.loc ?? "?"} lines of ${node.language}`));
  } else if (node.__typename === "Entry") {
    parts.push(h("p", {}, h("span", { class: `tag ${node.status}` }, node.status), node.content || ""));
  }
  if (node.__typename === "Symbol" || node.__typename === "File") {
    parts.push(h("p", {}, h("a", { id: "impact-link", href: href("impact", { targets: node.id }) }, "impact of changing this →")));
  }
  return parts;
}

/** The span's text, numbered from its first line. */
function code(source, ui) {
  const { h } = ui;
  if (!source || !source.text) return source ? source.notes.map((n) => h("p", { class: "muted" }, n)) : [];
  const numbered = source.text.split("\n").map((line, i) => `${String(source.startLine + i).padStart(5)}  ${line}`);
  return [h("details", { id: "node-source", open: true }, h("summary", {}, "source"),
            h("pre", {}, numbered.join("\n")),
            source.truncated ? h("p", { class: "muted" }, `… to line ${source.endLine}`) : "",
            ...source.notes.map((n) => h("p", { class: "muted" }, n)))];
}

/** Provenance as one timeline, newest first. */
function timeline(provenance, ui) {
  const { h, nodeLink } = ui;
  if (!provenance) return [h("p", { class: "muted" }, "no provenance recorded")];
  const items = [
    ...provenance.commits.map((c) => ({ at: c.at, node: [h("span", { class: "tag" }, c.kind),
      h("code", {}, c.sha.slice(0, 8)), ` ${c.summary} — ${c.author}`, c.via && c.via !== "direct" ? ` (${c.via})` : ""] })),
    ...provenance.lineage.map((l) => ({ at: l.at, node: [h("span", { class: "tag" }, "lineage"),
      `${l.direction} `, nodeLink(l.other), ` (${l.reason})`] })),
    ...provenance.sessions.map((s) => ({ at: s.at, node: [h("span", { class: "tag" }, "session"),
      nodeLink(s.id, s.title || s.id), ` ${s.relation}${s.by ? " by " + s.by : ""}`] })),
    ...provenance.entries.map((e) => ({ at: e.at, node: [h("span", { class: `tag ${e.status}` }, `${e.kind} · ${e.status}`),
      nodeLink(e.id, `${e.displayId} ${e.title}`), e.current ? "" : " (no longer in force)"] })),
    ...provenance.papers.map((p) => ({ at: null, node: [h("span", { class: "tag" }, "paper"),
      nodeLink(p.id, p.title), ` ${p.relation}`] })),
  ].sort((a, b) => String(b.at || "").localeCompare(String(a.at || "")));
  return [h("h3", {}, `Provenance (${items.length})`),
          h("ul", { class: "timeline", id: "node-timeline" }, items.map((item) =>
            h("li", {}, h("span", { class: "muted" }, item.at ? item.at.slice(0, 10) + " " : ""), ...item.node)))];
}
