// Map: a repository's communities (size = members, edges = DEPENDS_ON weight, dependency
// cycles in red). Tap a community for its members; "drill down" shows the communities it
// splits into (or its members when it splits no further); members link to their pages.
import { CAP, drawGraph, spotlight } from "../graph.js";

const DEPS = 30;  // DEPENDS_ON edges read per community (the query cost limit allows ~300 x 30)
const COMMUNITY = `id: key name size level
  dependsOn(first: ${DEPS}) { totalCount edges { weight node { id: key } } }`;
const PAGE = 100;  // the API's largest page
const TOP = `query($repo: String!, $first: Int!, $after: String) {
  communities(repo: $repo, level: 0, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { ${COMMUNITY} } } } }`;
const CHILDREN = `query($id: ID!, $first: Int!) { node(id: $id) { ... on Community {
  id: key name level subcommunityOf { edges { node { id: key name } } }
  subcommunities(first: $first) { totalCount edges { node { ${COMMUNITY} } } }
  members(first: $first) { totalCount edges { node { __typename
    ... on File { id: key path } ... on Symbol { id: key name kind file isTest } } } } } } }`;
const MEMBERS = `query($id: ID!) { node(id: $id) { ... on Community { id: key name size top
  members(first: 50) { totalCount edges { node { __typename
    ... on File { id: key path } ... on Symbol { id: key name kind file isTest } } } } } } }`;

export async function render(main, params, ui) {
  if (!ui.repo) throw new Error("no repository in this database yet (vgdb ingest PATH)");
  const { h, href } = ui;
  let communities, total, parent = null, members = [], membersTotal = 0;
  if (params.community) {
    parent = (await ui.gql(CHILDREN, { id: ui.globalId(params.community), first: PAGE })).node;
    if (!parent) throw new Error(`no community ${params.community}`);
    communities = parent.subcommunities.edges.map((e) => e.node);
    total = parent.subcommunities.totalCount;
    if (!communities.length) {
      members = parent.members.edges.map((e) => e.node);
      membersTotal = parent.members.totalCount;
    }
  } else {
    ({ communities, total } = await topCommunities(ui));
  }
  const graphBox = h("div", { class: "graph", id: "map-graph" });
  const side = h("div", { class: "panel", id: "map-panel" });
  const up = parent ? (parent.subcommunityOf.edges[0] || {}).node : null;
  side.append(
    h("h2", {}, parent ? `Community ${parent.name}` : `Communities of ${ui.repo}`),
    parent ? h("p", {}, h("a", { href: href("map", { repo: ui.repo, community: up ? up.id : "" }) },
                            up ? `↑ up to ${up.name}` : "↑ up to the top level")) : "",
    h("p", { class: "muted" }, "Size = members; arrows = DEPENDS_ON (width = weight); red = a dependency cycle. " +
      "Tap a community for its members."),
    h("div", { id: "map-detail" }));
  main.append(graphBox, side);

  const elements = members.length ? memberElements(members) : communityElements(communities);
  const cy = await drawGraph(graphBox, elements);
  const cycles = markCycles(cy);
  if (members.length) {
    cy.on("tap", "node", (event) => { location.hash = href("node", { id: event.target.id() }); });
  } else {
    cy.on("tap", "node", (event) => showCommunity(event.target, cy, ui));
  }
  const unread = communities.reduce((sum, c) => sum + c.dependsOn.totalCount - c.dependsOn.edges.length, 0);
  const notes = [cycles ? `${cycles} communities in cycles` : "",
                 unread ? `${unread} DEPENDS_ON edges not read (${DEPS} per community)` : ""].filter(Boolean);
  const shown = members.length || communities.length;
  const outOf = members.length ? membersTotal : total;
  return { graph: cy, shown, leftOut: outOf - shown, note: notes.join("; ") };
}

/** The largest top-level communities, a page at a time, up to CAP. */
async function topCommunities(ui) {
  const communities = [];
  let after = null, total = 0;
  while (communities.length < CAP) {
    const page = (await ui.gql(TOP, { repo: ui.repo, first: PAGE, after })).communities;
    communities.push(...page.edges.map((e) => e.node));
    total = page.totalCount;
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  return { communities, total };
}

function communityElements(communities) {
  const ids = new Set(communities.map((c) => c.id));
  const biggest = Math.max(1, ...communities.map((c) => c.size || 0));
  const weights = communities.flatMap((c) => c.dependsOn.edges.map((e) => e.weight || 0));
  const heaviest = Math.max(1e-9, ...weights);
  const nodes = communities.map((c) => ({ data: {
    id: c.id, label: `${c.name || c.id} (${c.size})`, kind: "community",
    size: 18 + 50 * Math.sqrt((c.size || 0) / biggest) } }));
  const edges = communities.flatMap((c) => c.dependsOn.edges
    .filter((e) => ids.has(e.node.id) && e.node.id !== c.id)
    .map((e) => ({ data: { id: `${c.id}->${e.node.id}`, source: c.id, target: e.node.id, label: "",
                           weight: e.weight, width: 1 + 6 * (e.weight || 0) / heaviest } })));
  return [...nodes, ...edges];
}

function memberElements(members) {
  return members.map((m) => ({ data: {
    id: m.id, label: m.path || m.name, size: 16,
    kind: m.__typename === "File" ? "file" : (m.isTest ? "test" : "symbol") } }));
}

/** Colour the strongly connected components (Tarjan, from Cytoscape.js) of more than one node. */
function markCycles(cy) {
  let count = 0;
  for (const component of cy.elements().tarjanStronglyConnected().components) {
    if (component.nodes().length > 1) {
      component.addClass("cycle");
      count += component.nodes().length;
    }
  }
  return count;
}

async function showCommunity(target, cy, ui) {
  const { h, href, nodeLink } = ui;
  spotlight(cy, target.closedNeighborhood());
  const detail = document.getElementById("map-detail");
  detail.replaceChildren(h("p", { class: "muted" }, "loading…"));
  const community = (await ui.gql(MEMBERS, { id: ui.globalId(target.id()) })).node;
  const members = community.members.edges.map((e) => e.node);
  detail.replaceChildren(
    h("h3", {}, community.name),
    h("p", {}, h("a", { id: "drill-down", href: href("map", { repo: ui.repo, community: community.id }) },
                 "drill down →")),
    h("p", { class: "muted" }, `${community.size} members; top: ${(community.top || []).join(", ")}`),
    h("ul", { id: "map-members" }, members.map((m) => h("li", {}, nodeLink(m.id, m.path || `${m.name} (${m.file})`)))),
    community.members.totalCount > members.length
      ? h("p", { class: "muted" }, `${community.members.totalCount - members.length} more members not listed`) : "");
}
