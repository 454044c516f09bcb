// The explorer's shell: a hash router (#/view?key=value, so every view is a shareable URL),
// the GraphQL client (the page's only backend, with the same bearer tokens as the API), the
// repository picker and the status line that says how long a view took and what it left out.
import * as map from "./views/map.js";
import * as node from "./views/node.js";
import * as impact from "./views/impact.js";
import * as search from "./views/search.js";
import * as history from "./views/history.js";

const VIEWS = { map, node, impact, search, history };
const TOKEN_KEY = "vgdb-token";
const main = document.getElementById("view");
const statusLine = document.getElementById("status");
const repoSelect = document.getElementById("repo-select");

/** Run a GraphQL query against this server; throws the first error's message. */
export async function gql(query, variables = {}) {
  const headers = { "content-type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch("/graphql", {
    method: "POST", headers, body: JSON.stringify({ query, variables }),
  });
  const body = await response.json().catch(() => ({ errors: [{ message: response.statusText }] }));
  if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
  return body.data;
}

/** The URL of a view with these parameters (empty ones dropped). */
export function href(view, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, value);
  }
  const text = query.toString();
  return `#/${view}${text ? "?" + text : ""}`;
}

/** An element with text and attributes: the views build their DOM with it (no innerHTML). */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "on") for (const [event, fn] of Object.entries(value)) element.addEventListener(event, fn);
    else if (value !== undefined && value !== null && value !== false) element.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

// node key prefix (schema/ids.py) -> GraphQL type, to make the Relay global id that
// node()/nodes() take from the readable keys the page keeps in its URLs
const TYPES = { sym: "Symbol", file: "File", commit: "Commit", session: "Session", entry: "Entry",
                community: "Community", paper: "Paper", repo: "Repository" };

/** The global id (base64 of "Type:key") of a node key such as sym:r/pkg/core.py#helper. */
export function globalId(key) {
  const type = TYPES[key.split(":")[0]];
  if (!type) throw new Error(`cannot tell the type of node ${key}`);
  const bytes = new TextEncoder().encode(`${type}:${key}`);
  return btoa(String.fromCharCode(...bytes));
}

/** A link to a node's page. */
export function nodeLink(id, label) {
  return h("a", { href: href("node", { id }), "data-node": id }, label || id);
}

function parseHash() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  return { view: VIEWS[path] ? path : "map", params: Object.fromEntries(new URLSearchParams(query || "")) };
}

let repositories = [];
let generation = 0;

async function route() {
  const { view, params } = parseHash();
  const mine = ++generation;
  document.body.dataset.rendered = "";
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.view === view);
  main.replaceChildren();
  main.className = "";
  statusLine.className = "";
  statusLine.textContent = `loading ${view}…`;
  const started = performance.now();
  try {
    if (params.repo && repositories.some((r) => r.name === params.repo)) repoSelect.value = params.repo;
    const repo = params.repo || repoSelect.value || (repositories[0] || {}).name;
    const result = await VIEWS[view].render(main, params, { repo, gql, href, h, nodeLink, globalId });
    if (mine !== generation) return;
    const ms = performance.now() - started;
    const leftOut = result.leftOut || 0;
    statusLine.replaceChildren(
      `${view}: ${result.shown} shown, `,
      h("span", { class: "left-out", id: "left-out" }, `${leftOut} left out`),
      result.note ? ` (${result.note})` : "",
      ` · rendered in ${Math.round(ms)} ms`);
    // for the browser console and the tests: the view's timing and its Cytoscape graph
    window.__explorer = { view, ms, shown: result.shown, leftOut, graph: result.graph || null };
    document.body.dataset.rendered = view;
  } catch (error) {
    if (mine !== generation) return;
    statusLine.className = "error";
    statusLine.textContent = `${view}: ${error.message}`;
    window.__explorer = { view, error: error.message };
    document.body.dataset.rendered = "error";
  }
}

async function loadRepositories() {
  const data = await gql("{ repositories { name } }");
  repositories = data.repositories;
  repoSelect.replaceChildren(...repositories.map((r) => h("option", { value: r.name }, r.name)));
  const wanted = parseHash().params.repo;
  if (wanted) repoSelect.value = wanted;
}

function wireHeader() {
  const tokenInput = document.getElementById("token-input");
  document.getElementById("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (tokenInput.value) sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
    else sessionStorage.removeItem(TOKEN_KEY);
    tokenInput.value = "";
    await start();
  });
  document.getElementById("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = href("search", { q: document.getElementById("search-input").value });
  });
  repoSelect.addEventListener("change", () => {
    const { view, params } = parseHash();
    location.hash = href(view === "node" ? "map" : view, { ...params, repo: repoSelect.value });
  });
  window.addEventListener("hashchange", route);
}

async function start() {
  try {
    await loadRepositories();
  } catch (error) {
    statusLine.className = "error";
    statusLine.textContent = `${error.message} — enter a token (top right)`;
    window.__explorer = { view: parseHash().view, error: error.message };
    document.body.dataset.rendered = "error";
    document.getElementById("token-box").open = true;
    return;
  }
  await route();
}

wireHeader();
start();
