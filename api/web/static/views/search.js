// Search: the hybrid search (BM25, vectors, graph proximity fused) with the signals behind
// each hit: its rank and score per signal, trust and freshness, and what supersedes it.
const QUERY = `query($q: String!, $k: Int!) { search(query: $q, k: $k) {
  signals notes weights { bm25 vector graph }
  hits { id table domain name kind location score fused trust freshness supersededBy
         bm25 { rank score } vector { rank score } graph { rank score } } } }`;

export async function render(main, params, ui) {
  const { h, nodeLink } = ui;
  main.className = "single";
  const q = (params.q || "").trim();
  document.getElementById("search-input").value = q;
  if (!q) {
    main.append(h("p", { class: "muted" }, "Type in the search box above."));
    return { shown: 0, leftOut: 0 };
  }
  const k = Number(params.k) || 20;
  const data = (await ui.gql(QUERY, { q, k })).search;
  const signal = (s) => (s ? `#${s.rank} (${s.score.toFixed(3)})` : "–");
  main.append(
    h("p", { class: "muted" }, `signals: ${data.signals.join(", ")}`, data.notes.length ? ` · ${data.notes.join(" · ")}` : ""),
    h("table", { id: "search-hits" },
      h("tr", {}, ["", "hit", "kind", "where", "score", "BM25", "vector", "graph", "trust", "fresh", "superseded by"].map((t) => h("th", {}, t))),
      data.hits.map((hit, i) => h("tr", { "data-hit": hit.id },
        h("td", {}, i + 1), h("td", {}, nodeLink(hit.id, hit.name)), h("td", {}, `${hit.domain}/${hit.kind}`),
        h("td", { class: "muted" }, hit.location), h("td", {}, hit.score.toFixed(3)),
        h("td", {}, signal(hit.bm25)), h("td", {}, signal(hit.vector)), h("td", {}, signal(hit.graph)),
        h("td", {}, hit.trust), h("td", {}, hit.freshness.toFixed(2)), h("td", {}, hit.supersededBy.join(", "))))),
    data.hits.length === k ? h("p", {}, h("a", { href: ui.href("search", { q, k: k * 2 }) }, "more hits →")) : "");
  return { shown: data.hits.length, leftOut: 0, note: data.hits.length === k ? `top ${k}; more may match` : "" };
}
