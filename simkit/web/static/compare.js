// Compare: two rule variants of any game on the same deals, as `simkit compare --json`
// gives them: each measure under A and B, the difference with its interval and p-value.

import { api, chrome, el, later, pct, pvalue, queryOf, replaceUrl, runJob, signed } from "./common.js";
import { PolicyEditor, RulesEditor, gameTable, urlValues } from "./forms.js";

const $ = (id) => document.getElementById(id);
const state = { games: null, game: null, a: null, b: null, policies: null, job: null, key: null };

// --- the inputs --------------------------------------------------------------------------

/** "LABEL:key=value,..." back into a preset-free list of settings. */
function parseVariant(text) {
  const i = text.indexOf(":");
  const label = i < 0 ? text : text.slice(0, i);
  const sets = i < 0 ? [] : text.slice(i + 1).split(",").map((s) => s.trim()).filter(Boolean);
  return { label, sets };
}

/** The preset a variant's settings start from (the one with the most settings all in it). */
function presetOf(g, sets) {
  const given = Object.fromEntries(sets.map((s) => s.split("=").map((t) => t.trim())));
  let best = { preset: "seed", n: 0 };
  for (const [name, values] of Object.entries(g.presets)) {
    const keys = Object.keys(values);
    if (keys.length > best.n && keys.every((k) => k in given && String(given[k]).toLowerCase() === String(values[k]).toLowerCase())) {
      best = { preset: name, n: keys.length };
    }
  }
  const inPreset = g.presets[best.preset] || {};
  return { preset: best.preset, sets: sets.filter((s) => !(s.split("=")[0].trim() in inPreset)) };
}

function variantText(label, editor) {
  return `${label.trim()}:${editor.overrides().join(",")}`;
}

function pairs() {
  const g = state.game;
  const out = [["game", g.name],
    ["variant", variantText($("label-a").value, state.a)], ["variant", variantText($("label-b").value, state.b)]];
  if (Number($("players").value) !== g.default_players) out.push(["players", $("players").value]);
  out.push(...state.policies.pairs());
  // a game played only in whole games has no hands to set (the command refuses --hands)
  for (const id of ["hands", "games", "seed"]) if (id !== "hands" || g.unit !== "game") out.push([id, $(id).value.trim()]);
  return out;
}

function changed() {
  if (!state.policies) return;
  replaceUrl(pairs());
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : state.game.default_policy;
  estimateSoon();
}

const estimateSoon = later(async () => {
  if (state.job) return;
  const p = pairs();
  const key = queryOf(p);
  state.key = key;
  $("estimate").textContent = "expected time: estimating…";
  try {
    const e = await api(`/api/estimate?${queryOf([["command", "compare"], ...p])}`);
    if (state.key === key) { $("estimate").textContent = `expected time: ${e.text}`; $("alert").textContent = ""; }
  } catch (err) {
    if (state.key !== key) return;
    $("estimate").textContent = "";
    $("alert").textContent = err.message;
  }
}, 400);

function chooseGame(name, values = {}) {
  const g = state.games[name];
  state.game = g;
  $("game").value = name;
  $("hands").closest(".field").style.display = g.unit === "game" ? "none" : "";
  const P = Number((values.players || [])[0]);
  $("players").replaceChildren(...g.players.map((p) => el("option", { value: p }, `${p} players`)));
  $("players").value = g.players.includes(P) ? P : g.default_players;
  const [va, vb] = (values.variant || ["A:", `B:`]).map(parseVariant);
  $("label-a").value = va.label || "A";
  $("label-b").value = (vb || { label: "B" }).label || "B";
  state.a = new RulesEditor($("rules-a"), g, { ...presetOf(g, va.sets), onChange: changed, id: "rules-a" });
  state.b = new RulesEditor($("rules-b"), g, { ...presetOf(g, (vb || { sets: [] }).sets), onChange: changed, id: "rules-b" });
  state.policies = new PolicyEditor($("policies"), g, Number($("players").value), values.policy || [],
    { onChange: changed, id: "pol" });
  $("answer").hidden = true;
  changed();
}

// --- running ------------------------------------------------------------------------------

function run() {
  return runJob(state, "compare", pairs(), {
    button: $("run"), cancel: $("cancel"), progress: $("progress"), bar: $("bar"),
    percent: $("percent"), eta: $("eta"), estimate: $("estimate"), alert: $("alert"),
  }, show);
}

// --- the answer ----------------------------------------------------------------------------

const TITLES = { hands: "Hands", bids: "Bids", scores: "Scores", games: "Games", sessions: "Sessions", variants: "Variants" };

function num(v) {
  if (v === null || v === undefined) return "–";
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

function diffText(v, rate) {
  if (v === null || v === undefined) return "–";
  return rate ? `${signed(100 * v, 1)} pp` : signed(v, Math.abs(v) >= 100 ? 1 : 3);
}

/** A small SVG: the difference and its interval against zero. */
function diffBar(d, lo, hi, span) {
  const W = 150, H = 18, mid = W / 2;
  const x = (v) => mid + (v / span) * (W / 2 - 4);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "diffbar");
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  svg.setAttribute("aria-hidden", "true");
  const sig = lo !== null && hi !== null && (lo > 0 || hi < 0);
  svg.innerHTML = `<line x1="${mid}" x2="${mid}" y1="1" y2="${H - 1}" stroke="#8a826c" stroke-dasharray="3 2"/>`
    + (lo === null ? "" : `<line x1="${x(lo)}" x2="${x(hi)}" y1="${H / 2}" y2="${H / 2}" stroke="${sig ? "#b38a24" : "#1f5f3f"}" stroke-width="3" stroke-linecap="round"/>`)
    + `<circle cx="${x(d)}" cy="${H / 2}" r="4.5" fill="${sig ? "#e0b64a" : "#1f5f3f"}" stroke="#fff" stroke-width="1.5"/>`;
  return svg;
}

function cell(text, data = {}) {
  const td = el("td", {}, text);
  for (const [k, v] of Object.entries(data)) td.dataset[k] = JSON.stringify(v ?? null);
  return td;
}

/** The half-width a row's bar shows: its own interval's reach (measures differ in units). */
function spanOf(r) {
  return Math.max(1e-12, Math.abs(r.ci_low ?? 0), Math.abs(r.ci_high ?? 0), Math.abs(r.diff ?? 0)) * 1.1;
}

function metricTable(rows, labels) {
  const head = el("tr", {}, el("th", { class: "left" }, "measure"), el("th", {}, labels[0]), el("th", {}, labels[1]),
    el("th", {}, `${labels[1]} − ${labels[0]} [95% CI]`), el("th", {}, "p-value"), el("th", {}, ""));
  const body = rows.map((r) => {
    const rate = r.kind === "rate";
    const f = rate ? (v) => pct(v) : num;
    const sig = r.p_value !== null && r.p_value < 0.05;
    const d = cell("", { diff: r.diff });
    d.append(el("span", { class: sig ? "sig" : "" }, diffText(r.diff, rate)),
      el("span", { class: "ci" }, `[${diffText(r.ci_low, rate)}, ${diffText(r.ci_high, rate)}]`));
    return el("tr", { "data-metric": r.metric }, el("td", { class: "left" }, r.metric),
      cell(f(r.a), { a: r.a }), cell(f(r.b), { b: r.b }), d, cell(pvalue(r.p_value), { p: r.p_value }),
      el("td", {}, diffBar(r.diff ?? 0, r.ci_low, r.ci_high, spanOf(r))));
  });
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

function bidTable(rows, labels) {
  const [A, B] = labels;
  const head = el("tr", {}, el("th", { class: "left" }, "bid"), el("th", {}, `share ${A}`), el("th", {}, `share ${B}`),
    el("th", {}, "difference [95% CI]"), el("th", {}, "p"), el("th", {}, `made ${A}`), el("th", {}, `made ${B}`),
    el("th", {}, "difference [95% CI]"), el("th", {}, "p"));
  const pp = (v) => diffText(v, true);
  const body = rows.map((r) => el("tr", { "data-metric": r.bid }, el("td", { class: "left" }, r.bid),
    cell(pct(r.rate_a), { a: r.rate_a }), cell(pct(r.rate_b), { b: r.rate_b }),
    el("td", {}, pp(r.diff), el("span", { class: "ci" }, `[${pp(r.ci_low)}, ${pp(r.ci_high)}]`)), cell(pvalue(r.p_value)),
    cell(pct(r.made_a)), cell(pct(r.made_b)),
    el("td", {}, pp(r.made_diff), el("span", { class: "ci" }, `[${pp(r.made_ci_low)}, ${pp(r.made_ci_high)}]`)),
    cell(pvalue(r.made_p_value))));
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

function show(c) {
  const answer = $("answer");
  answer.hidden = false;
  const parts = [];
  const variants = c.tables.variants || [];
  const head = el("section", { class: "panel" }, el("h2", {}, `${state.games[c.game].title}: ${c.labels.join(" vs ")}`),
    el("ul", { class: "policies" }, variants.map((v) => el("li", {}, el("b", {}, v.label), el("code", {}, v.changes)))),
    el("p", { class: "hint" }, [`${c.players} players`, c.hands ? `${c.hands.toLocaleString("en")} hands` : null,
      c.games ? `${c.games.toLocaleString("en")} games` : null, `seed ${c.seed}`].filter(Boolean).join(", ")
      + ". Differences are B − A; gold: the 95% interval excludes 0."),
    el("h3", {}, "The policies that played"),
    el("ul", { class: "policies" }, c.policies.map((p, s) => el("li", {}, el("b", {}, `seat ${s}`), el("code", {}, p)))));
  parts.push(head);
  for (const [name, rows] of Object.entries(c.tables)) {
    if (name === "variants") continue;
    const table = name === "bids" ? bidTable(rows, c.labels) : metricTable(rows, c.labels);
    parts.push(el("section", { class: "panel", "data-table": name }, el("h2", {}, TITLES[name] || name),
      rows.length ? el("div", { class: "scroll" }, table) : el("p", { class: "empty-state" }, "no rows")));
  }
  answer.replaceChildren(...parts);
}

// --- start -----------------------------------------------------------------------------------

async function start() {
  chrome("/compare");
  state.games = await gameTable();
  const values = urlValues();
  $("game").replaceChildren(...Object.values(state.games).map((g) => el("option", { value: g.name }, g.title)));
  for (const id of ["hands", "games", "seed"]) if (values[id]) $(id).value = values[id][0];
  const name = values.game && state.games[values.game[0]] ? values.game[0] : Object.keys(state.games)[0];
  chooseGame(name, values);
  $("game").addEventListener("change", () => chooseGame($("game").value));
  $("players").addEventListener("change", () => { state.policies.setPlayers(Number($("players").value)); changed(); });
  for (const id of ["hands", "games", "seed", "label-a", "label-b"]) $(id).addEventListener("input", changed);
  $("run").addEventListener("click", run);
  $("cancel").addEventListener("click", () => state.job && state.job.cancel());
}

start().catch((e) => { $("alert").textContent = e.message; });
