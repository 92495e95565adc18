// Compare: two to eight rule variants of any game on the same deals, or a sweep of one
// rule, as `simkit compare --json` gives them: each later variant against the first
// (the base), every measure's paired difference with its interval, p, Holm's p and
// finding (higher, lower, no change, not shown either way, depends on adaptation); the
// designer's measures with a figure across the variants; the policies each variant
// played with (adapted to its rules or not, each adaptation's), and with adapted players
// the best-response check.

import { api, chrome, el, later, pct, pvalue, queryOf, replaceUrl, runJob, signed } from "./common.js";
import { PolicyEditor, RulesEditor, choicesOf, gameTable, urlValues } from "./forms.js";
import { explain, explained, loadTerms, markStatic, termOf } from "./terms.js";
import { term } from "./glossary.js";

const $ = (id) => document.getElementById(id);
const MAX = 8;
/** The adaptation's sizes a page may set (blank: the command's defaults). */
const ADAPT_SIZES = ["adapt-seeds", "adapt-rounds", "adapt-trials", "adapt-games"];
const state = { games: null, game: null, variants: [], policies: null, job: null, key: null };

/** The words of the measures the glossary explains (each marked once per table). */
const WORDS = {
  Ndogo: "ndogo", Kubwa: "kubwa", "thrown-in": "thrown in", "thrown in": "thrown in", moons: "moon",
  moon: "moon", pitcher: "pitcher", pitched: "pitcher", session: "session", pickups: "pickup",
  pickup: "pickup", burns: "burn", starter: "starter", pozzetto: "pozzetto", burraco: "burraco",
  burracos: "burraco", "wild cards": "wild", sets: "meld", sequences: "meld", closed: "closed",
  "contracts made": "made", "contract level": "pepper-bid", comeback: "comeback", "lead changes": "comeback",
  skill: "skill",
};

/** A table heading that explains its word (p, Holm's p, the 95% interval). */
function th(text, word = null, cls = null) {
  const t = word && termOf(word);
  return el("th", { class: cls }, t ? term(t.key, null, text) : text);
}

// --- the inputs --------------------------------------------------------------------------

/** "LABEL:key=value,..." back into its label and settings. */
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

const sweeping = () => $("mode-sweep").checked;

function variantText(v) {
  return `${v.labelInput.value.trim()}:${v.editor.overrides().join(",")}`;
}

function pairs() {
  const g = state.game;
  const out = [["game", g.name]];
  // a sweep: one variant per value, the first the base, on the rule book's other rules
  if (!sweeping()) for (const v of state.variants) out.push(["variant", variantText(v)]);
  if (sweeping()) out.push(["sweep", `${$("sweep-key").value}=${$("sweep-values").value.trim()}`]);
  if (Number($("players").value) !== g.default_players) out.push(["players", $("players").value]);
  out.push(...state.policies.pairs());
  // a game played only in whole games has no hands to set (the command refuses --hands)
  for (const id of ["hands", "games", "seed"]) if (id !== "hands" || g.unit !== "game") out.push([id, $(id).value.trim()]);
  if ($("adapt").checked) {
    out.push(["adapt", "1"]);
    for (const id of ADAPT_SIZES) if ($(id).value.trim()) out.push([id, $(id).value.trim()]);
  }
  if (!$("skill").checked) out.push(["skill", "0"]);
  return out;
}

function changed() {
  if (!state.policies) return;
  $("adapt-sizes").hidden = !$("adapt").checked;
  replaceUrl(pairs());
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : state.game.default_policy;
  const n = state.variants.length;
  $("add").disabled = n >= MAX;
  $("count").textContent = sweeping() ? ""
    : `${n} variants (2 to ${MAX}); the first is the base`;
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

/** One variant's card: its label, rules and (not for the base) a Remove button. */
/** An id for a new variant's inputs: rules-a, rules-b, ... in the order made (stable, so
 *  that an address opens the same inputs). */
function freshId() {
  const used = new Set(state.variants.map((v) => v.id));
  const letter = "abcdefghijklmnop".split("").find((c) => !used.has(`rules-${c}`));
  return `rules-${letter}`;
}

function addVariant(g, { label, sets }, focus = false) {
  const i = state.variants.length;
  const id = freshId();
  const labelInput = el("input", { class: "label-input", id: `${id}-label`, type: "text", value: label,
    "aria-label": `label of variant ${i + 1}`, spellcheck: "false", autocomplete: "off" });
  const host = el("div", {});
  const remove = el("button", { type: "button", class: "small", "aria-label": `remove variant ${label}` }, "Remove");
  const card = el("div", { class: "variant" }, el("h3", {}, "Variant ", labelInput,
    el("span", { class: "base-mark" }, ""), remove), host);
  const v = { id, card, labelInput, remove };
  v.editor = new RulesEditor(host, g, { ...presetOf(g, sets), onChange: changed, id });
  labelInput.addEventListener("input", changed);
  remove.addEventListener("click", () => {
    const at = state.variants.indexOf(v);
    state.variants.splice(at, 1);
    card.remove();
    marks();
    changed();
    const next = state.variants[Math.min(at, state.variants.length - 1)];
    (next.remove.hidden ? next.labelInput : next.remove).focus();
  });
  state.variants.push(v);
  $("variants").append(card);
  marks();
  if (focus) labelInput.focus();
}

/** The base's mark, and Remove only while more than two variants remain. */
function marks() {
  state.variants.forEach((v, i) => {
    v.card.querySelector(".base-mark").textContent = i === 0 ? " (the base)" : "";
    v.remove.hidden = i === 0 || state.variants.length <= 2 || sweeping();
    v.card.hidden = sweeping();
  });
}

function sweepKeys(g, chosen) {
  const rows = g.rules.filter((r) => r.key !== "players");
  $("sweep-key").replaceChildren(...rows.map((r) => el("option", { value: r.key }, r.key.replaceAll("_", " "))));
  $("sweep-key").value = rows.some((r) => r.key === chosen) ? chosen : rows[0].key;
  sweepDoc();
}

function sweepDoc() {
  const row = state.game.rules.find((r) => r.key === $("sweep-key").value);
  if (!row) return;
  const choices = choicesOf(row.accepted);
  $("sweep-doc").textContent = `${row.doc} (accepted: ${row.accepted}; default ${row.default})`;
  if (!$("sweep-values").value.trim() && choices) $("sweep-values").value = choices.join(",");
}

function setMode(sweep) {
  $("mode-sweep").checked = sweep;
  $("mode-variants").checked = !sweep;
  $("sweep").hidden = !sweep;
  $("add").closest(".runbar").hidden = sweep;
  marks();
}

function chooseGame(name, values = {}) {
  const g = state.games[name];
  state.game = g;
  $("game").value = name;
  $("hands").closest(".field").style.display = g.unit === "game" ? "none" : "";
  const P = Number((values.players || [])[0]);
  $("players").replaceChildren(...g.players.map((p) => el("option", { value: p }, `${p} players`)));
  $("players").value = g.players.includes(P) ? P : g.default_players;
  state.variants = [];
  $("variants").replaceChildren();
  const given = (values.variant || ["A:", "B:"]).map(parseVariant).slice(0, MAX);
  while (given.length < 2) given.push({ label: given.length ? "B" : "A", sets: [] });
  for (const v of given.slice(0, MAX)) addVariant(g, v);
  const sweep = (values.sweep || [""])[0];
  const [key, vals] = sweep.split(/=(.*)/s);
  $("sweep-values").value = vals || "";
  sweepKeys(g, key);
  setMode(Boolean(sweep));
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

const TITLES = { hands: "Hands", bids: "Bids", scores: "Scores", games: "Games", sessions: "Sessions",
  design: "The designer's measures" };

function num(v) {
  if (v === null || v === undefined) return "–";
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

function diffText(v, rate) {
  if (v === null || v === undefined) return "–";
  return rate ? `${signed(100 * v, 1)} pp` : signed(v, Math.abs(v) >= 100 ? 1 : 3);
}

const NS = "http://www.w3.org/2000/svg";
function svg(w, h, cls, label) {
  const s = document.createElementNS(NS, "svg");
  s.setAttribute("viewBox", `0 0 ${w} ${h}`);
  s.setAttribute("class", cls);
  if (label) { s.setAttribute("role", "img"); s.setAttribute("aria-label", label); } else s.setAttribute("aria-hidden", "true");
  return s;
}

const SIG = "#1f7a3f", PLAIN = "#9a927c";

/** A small SVG: the difference and its interval against zero (one line per adaptation),
 *  green when the finding tells a difference. */
function diffBar(r, span) {
  const each = Array.isArray(r.by_adaptation) && r.by_adaptation.length > 1 ? r.by_adaptation
    : [{ diff: r.diff ?? 0, ci_low: r.ci_low, ci_high: r.ci_high }];
  const W = 150, H = Math.max(18, 8 * each.length + 4), mid = W / 2;
  const x = (v) => mid + (v / span) * (W / 2 - 4);
  const s = svg(W, H, "diffbar");
  s.setAttribute("width", W);
  s.setAttribute("height", H);
  const colour = found(r.finding) ? SIG : PLAIN;
  let inner = `<line x1="${mid}" x2="${mid}" y1="1" y2="${H - 1}" stroke="#8a826c" stroke-dasharray="3 2"/>`;
  each.forEach((e, i) => {
    const y = each.length === 1 ? H / 2 : 4 + i * ((H - 8) / (each.length - 1));
    if (e.ci_low !== null && e.ci_low !== undefined) inner += `<line x1="${x(e.ci_low)}" x2="${x(e.ci_high)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="3" stroke-linecap="round"/>`;
    inner += `<circle cx="${x(e.diff ?? 0)}" cy="${y}" r="${each.length === 1 ? 4.5 : 3.5}" fill="${colour}" stroke="#fff" stroke-width="1.5"/>`;
  });
  s.innerHTML = inner;
  return s;
}

/** The half-width a row's bar shows: its own interval's reach (measures differ in units). */
function spanOf(r) {
  return Math.max(1e-12, Math.abs(r.ci_low ?? 0), Math.abs(r.ci_high ?? 0), Math.abs(r.diff ?? 0)) * 1.1;
}

/** A finding that tells a difference (the table's bold green, the bar's green). */
const found = (word) => word === "higher" || word === "lower";

/** A row's finding in words, with what would tell where nothing was shown either way. */
function findingCell(r, prefix = "") {
  const word = r[`${prefix}finding`];
  if (!word) return el("td", {}, "–");
  const t = termOf(word);
  const text = t ? term(t.key, null, word) : word;
  const td = el("td", { class: "finding" }, el("span", { class: found(word) ? "sig" : "" }, text));
  const n = r[`${prefix}needed`];
  if (word === "not shown either way" && n) {
    td.append(el("span", { class: "ci" }, `about ${Math.round(n).toLocaleString("en")} would tell`));
  }
  td.dataset.finding = JSON.stringify(word);
  return td;
}

/** The difference cell: the difference and its interval, or with several adaptations each
 *  adaptation's difference and the span of their intervals. */
function diffCell(r, rate, prefix = "") {
  const each = r[`${prefix}by_adaptation`];
  const d = r[`${prefix}diff`], lo = r[`${prefix}ci_low`], hi = r[`${prefix}ci_high`];
  const word = r[`${prefix}finding`];
  const td = el("td", {});
  if (Array.isArray(each) && each.length > 1) {
    td.append(el("span", { class: found(word) ? "sig" : "" }, each.map((e) => diffText(e.diff, rate)).join(" · ")),
      el("span", { class: "ci" }, `each adaptation; span [${diffText(lo, rate)}, ${diffText(hi, rate)}]`));
    td.dataset.adaptations = JSON.stringify(each);
  } else {
    td.append(el("span", { class: found(word) ? "sig" : "" }, diffText(d, rate)),
      el("span", { class: "ci" }, `[${diffText(lo, rate)}, ${diffText(hi, rate)}]`));
  }
  return td;
}

/** A table cell whose data attributes hold the exact numbers (for scripts and tests). */
function cell(text, data = {}) {
  const td = el("td", {}, text);
  for (const [k, v] of Object.entries(data)) td.dataset[k] = JSON.stringify(v ?? null);
  return td;
}

function metricTable(rows, labels) {
  const head = el("tr", {}, el("th", { class: "left" }, "measure"), el("th", {}, labels[0]), el("th", {}, labels[1]),
    el("th", {}, `${labels[1]} − ${labels[0]} `, ciHead()), th("p", "p-value"), th("Holm's p", "Holm's p"),
    th("finding", "finding"), el("th", {}, el("span", { class: "sr-only" }, "difference as a bar")));
  const seen = new Set();
  const body = rows.map((r) => {
    const rate = r.kind === "rate";
    const f = rate ? (v) => pct(v) : num;
    return el("tr", { "data-metric": r.metric }, explain(el("td", { class: "left" }, r.metric), state.game.name, WORDS, seen),
      cell(f(r.a), { a: r.a }), cell(f(r.b), { b: r.b }), diffCell(r, rate), cell(pvalue(r.p_value), { p: r.p_value }),
      cell(pvalue(r.p_holm), { holm: r.p_holm }), findingCell(r), el("td", {}, diffBar(r, spanOf(r))));
  });
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

/** "[95% CI]", the interval explained. */
function ciHead() {
  const t = termOf("interval");
  return t ? el("span", {}, "[", term(t.key, null, "95% CI"), "]") : "[95% CI]";
}

function bidTable(rows, labels) {
  const [A, B] = labels;
  const head = el("tr", {}, el("th", { class: "left" }, "bid"), el("th", {}, `share ${A}`), el("th", {}, `share ${B}`),
    el("th", {}, "difference ", ciHead()), th("Holm's p", "Holm's p"), th("finding", "finding"), th(`made ${A}`, "made"),
    el("th", {}, `made ${B}`), el("th", {}, "difference [95% CI]"), el("th", {}, "Holm's p"), el("th", {}, "finding"));
  const seen = new Set();
  const made = (r) => (r.level ? [diffCell(r, true, "made_"), el("td", {}, pvalue(r.made_p_holm)), findingCell(r, "made_")]
    : [el("td", {}, "–"), el("td", {}, "–"), el("td", {}, "–")]);
  const body = rows.map((r) => el("tr", { "data-metric": r.bid }, explain(el("td", { class: "left" }, r.bid), state.game.name, WORDS, seen),
    cell(pct(r.rate_a), { a: r.rate_a }), cell(pct(r.rate_b), { b: r.rate_b }), diffCell(r, true),
    el("td", {}, pvalue(r.p_holm)), findingCell(r), el("td", {}, pct(r.made_a)), el("td", {}, pct(r.made_b)), ...made(r)));
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

/** Tick labels: a sweep's values alone (its key said once, under the figures). */
function ticks(labels) {
  const key = labels[0].split("=")[0];
  const swept = labels.every((l) => l.includes("=") && l.split("=")[0] === key);
  return swept ? { key, names: labels.map((l) => l.slice(key.length + 1)) } : { key: null, names: labels };
}

/** One measure across the variants: each variant's value with its 95% interval. */
function acrossChart(metric, points, rate) {
  const W = 300, H = 150, L = 58, R = 8, T = 8, B = 34;     // L: room for "105.0%" at 12.5 px
  const lo = Math.min(...points.map((p) => p.lo ?? p.v)), hi = Math.max(...points.map((p) => p.hi ?? p.v));
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.05 || 0.01;
  const y0 = lo - pad, y1 = hi + pad;
  const x = (i) => L + (points.length === 1 ? 0.5 : i / (points.length - 1)) * (W - L - R - 10) + 5;
  const y = (v) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
  const f = (v) => (rate ? `${(100 * v).toFixed(1)}%` : num(v));
  const s = svg(W, H, "across", `${metric}: ${points.map((p) => `${p.label} ${f(p.v)}`).join(", ")}`);
  let inner = `<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#c9c1a8"/>`
    + `<text x="${L - 4}" y="${y(y1) + 10}" text-anchor="end" class="tick">${f(y1)}</text>`
    + `<text x="${L - 4}" y="${y(y0)}" text-anchor="end" class="tick">${f(y0)}</text>`;
  points.forEach((p, i) => {
    if (p.lo !== null && p.hi !== null) inner += `<line x1="${x(i)}" x2="${x(i)}" y1="${y(p.lo)}" y2="${y(p.hi)}" stroke="#1f5f3f" stroke-width="2.5" stroke-linecap="round"/>`;
    inner += `<circle cx="${x(i)}" cy="${y(p.v)}" r="4.5" fill="${i === 0 ? "#1f5f3f" : "#e0b64a"}" stroke="#fff" stroke-width="1.5"/>`
      + `<text x="${x(i)}" y="${H - B + 16}" text-anchor="middle" class="tick">${p.tick.length > 12 ? p.tick.slice(0, 11) + "…" : p.tick}</text>`;
  });
  s.innerHTML = inner;
  return el("figure", { class: "across" }, el("figcaption", {}, metric), s);
}

/** Per design measure with intervals: its value under each variant, the base first. */
function acrossFigures(rows, labels) {
  const out = [];
  const { names } = ticks(labels);
  const tick = Object.fromEntries(labels.map((l, i) => [l, names[i]]));
  const metrics = [...new Set(rows.map((r) => r.metric))];
  for (const m of metrics) {
    const mine = rows.filter((r) => r.metric === m);
    const first = mine[0];
    if (!first || first.a_low === undefined || first.a === null) continue;
    const points = [{ label: labels[0], tick: tick[labels[0]], v: first.a, lo: first.a_low, hi: first.a_high }];
    for (const later of labels.slice(1)) {
      const r = mine.find((x) => (x.vs ?? labels[1]) === later);
      if (r && r.b !== null) points.push({ label: later, tick: tick[later], v: r.b, lo: r.b_low ?? null, hi: r.b_high ?? null });
    }
    out.push(acrossChart(m, points, first.kind === "rate"));
  }
  return out;
}

function played(v, g) {
  const texts = v.policies;
  const short = (t) => {
    const [name, rest] = t.split(/:(.*)/s);
    const pol = g.policies.find((p) => p.name === name);
    const defaults = Object.fromEntries((pol ? pol.params : []).map((r) => [r.key, r.default]));
    const diff = (rest || "").split(",").filter((kv) => {
      const [k, val] = kv.split("=");
      return kv && String(defaults[k]).toLowerCase() !== String(val).toLowerCase();
    });
    return diff.length ? `${name}:${diff.join(",")}` : name;
  };
  const all = [...new Set(texts)];
  return all.length === 1 ? `${short(all[0])} at every seat` : texts.map(short).join(" | ");
}

/** How one adaptation of a variant went: its setting, and each round. */
function adaptationItem(one, k, n, objective, g) {
  const label = n > 1 ? `adaptation ${k + 1}: ` : "";
  const how = one.reused ? "kept from an earlier run" : `${one.rounds} round${one.rounds === 1 ? "" : "s"}`;
  const said = one.continued_from
    ? `took ${one.continued_from}'s setting, which beat its own under these rules, and went on from it (${how})`
    : one.changed ? `adapted to these rules (${how}; objective: ${objective})`
      : `the players needed no change under this rule (${how})`;
  const rounds = (one.trace || []).map((t) => el("li", {}, t.diff === null
    ? `round ${t.round}: no setting beat the field on the search's deals: kept`
    : `round ${t.round}: best ${played({ policies: [t.best] }, g)}, against the field ${signed(t.diff, 4)} `
      + (t.ci_low === null ? "" : `[${signed(t.ci_low, 4)}, ${signed(t.ci_high, 4)}] `)
      + `on ${t.games.toLocaleString("en")} fresh games: ${t.adopted ? "adopted" : "the field kept"}`));
  return el("li", {}, label, el("code", {}, played({ policies: [one.setting] }, g)), `: ${said}`,
    one.capped ? el("span", { class: "warn" }, " — stopped at the cap of rounds while still improving") : null,
    rounds.length ? el("details", { class: "params" }, el("summary", {}, "its rounds"), el("ul", {}, rounds)) : null);
}

function headPanel(c) {
  const g = state.games[c.game];
  const variants = c.tables.variants || [];
  const items = variants.map((v, i) => {
    const a = v.adapted;
    const each = a ? a.by_adaptation : [];
    const line = a ? el("ul", { class: "adaptations" }, each.map((one, k) => adaptationItem(one, k, each.length, a.objective, g)))
      : el("div", { class: "hint" }, "played by ", el("code", {}, played(v, g)), ", not adapted");
    return el("li", { "data-variant": v.label }, el("b", {}, v.label + (i === 0 ? " (base)" : "")), " ", el("code", {}, v.changes), line);
  });
  const adapted = variants.some((v) => v.adapted);
  const k = adapted ? variants[0].adapted.seeds : 1;
  const warnings = (c.warnings || []).map((w) => el("p", { class: "callout warn", role: "note" }, `Warning: ${w}.`));
  return el("section", { class: "panel" }, el("h2", {}, `${g.title}: ${c.labels.join(", ")}`),
    el("p", { class: "hint" }, [`${c.players} players`, c.hands ? `${c.hands.toLocaleString("en")} hands` : null,
      c.games ? `${c.games.toLocaleString("en")} games` : null, `seed ${c.seed}`].filter(Boolean).join(", ")
      + " per variant. Differences are later − base on the same deals; ",
      el("span", { class: "sig" }, "bold green"), " (and a green bar): ", ...explained("a finding of higher or lower (Holm's p below 5%).", null, ["Holm's p"]),
      adapted && k > 1 ? ` The players were adapted ${k} times, each time independently; the comparison was played once per adaptation on the same deals, and a finding holds only where every adaptation agrees.` : ""),
    ...warnings,
    el("h3", {}, "The variants and the policies that played them"), el("ul", { class: "policies played" }, items));
}

/** The best-response check: per adaptation, under each variant's rules its own adapted
 *  setting against every other variant's (own minus other), flagged where it loses. */
function bestResponse(c) {
  const rows = c.tables.best_response || [];
  if (!rows.length) return null;
  const labels = c.labels;
  const objective = (c.tables.variants[0].adapted || {}).objective || "";
  const tables = [...new Set(rows.map((r) => r.adaptation))].map((k) => {
    const mine = rows.filter((r) => r.adaptation === k);
    const head = el("tr", {}, el("th", { class: "left" }, "under the rules of"),
      ...labels.map((l) => el("th", {}, `against ${l}'s setting`)));
    const body = labels.map((own) => el("tr", { "data-rules": own }, el("td", { class: "left" }, own),
      ...labels.map((other) => {
        if (own === other) return el("td", {}, "–");
        const cells = mine.filter((r) => r.rules === own && r.setting_of === other);
        const td = el("td", {});
        for (const r of cells) {
          const note = r.flagged ? (r.continued ? "loses: went on from that setting" : "loses") : r.after ? "after going on" : "";
          if (r.same) { td.append(el("span", {}, "the same setting")); continue; }
          td.append(el("span", { class: r.flagged ? "warn" : "" }, signed(r.diff, 4)),
            el("span", { class: "ci" }, `[${signed(r.ci_low, 4)}, ${signed(r.ci_high, 4)}]${note ? ` ${note}` : ""}`));
        }
        td.dataset.cells = JSON.stringify(cells.map((r) => ({ diff: r.diff, flagged: r.flagged })));
        return td;
      })));
    return el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `best-response check, adaptation ${k}` },
      el("table", { class: "data", "data-adaptation": k }, el("caption", {}, `Adaptation ${k}`), el("thead", {}, head), el("tbody", {}, body)));
  });
  return el("section", { class: "panel", "data-table": "best_response" },
    el("h2", {}, "Best-response check"),
    el("p", { class: "hint" }, `Under each variant's rules, its adapted setting against another variant's on the same fresh `
      + `duplicate deals (${rows[0].games.toLocaleString("en")} of them): own minus other, in ${objective}, with its 95% interval. `
      + "A setting that loses under its own rules is flagged, and its adaptation went on from the better one."),
    ...tables);
}

/** The win rates of a table when they do not add up to 100% (per variant), with why:
 *  tied top sides all win (more), games nobody won (less); else null. */
function sumNote(name, rows, labels) {
  const wins = rows.filter((r) => r.kind === "rate" && /^(balance: )?win rate,|\bwin rate$/.test(r.metric));
  if (wins.length < 2) return null;
  const totals = ["a", "b"].map((k) => (wins.some((r) => r[k] === null || r[k] === undefined) ? null
    : wins.reduce((sum, r) => sum + r[k], 0)));
  const off = totals.filter((t) => t !== null && Math.abs(t - 1) > 0.0005);
  if (!off.length) return null;
  const each = totals.map((t, i) => `${labels[i]} ${t === null ? "–" : pct(t, 1)}`).join(", ");
  const why = [
    off.some((t) => t > 1) ? "more than 100% because sides that tie for the top all count as winners" : null,
    off.some((t) => t < 1) ? "less than 100% because a game nobody won (unfinished, or shared) counts for no side" : null,
  ].filter(Boolean).join("; and ");
  return el("p", { class: "callout sum-note", "data-sum": JSON.stringify(totals) },
    `The win rates add up to ${each}: ${why}.`);
}

function show(c) {
  const answer = $("answer");
  answer.hidden = false;
  const parts = [headPanel(c), bestResponse(c)].filter(Boolean);
  const labels = c.labels;
  const several = labels.length > 2;
  const variants = c.tables.variants || [];
  for (const later of labels.slice(1)) {
    const pair = [labels[0], later];
    const v = variants.find((x) => x.label === later) || {};
    const shares = Object.entries(v).filter(([k]) => k.startsWith("differing_"))
      .map(([k, x]) => `${x === null ? "–" : `${(100 * x).toFixed(2)}%`} of the ${k.slice(10)}`);
    const block = [el("h2", {}, `${later} against ${labels[0]}`),
      el("p", {}, `Deals whose records differ from the base's: ${shares.join(", ")}.`)];
    if (c.identical && c.identical[later]) block.push(el("p", { class: "callout", role: "note" }, c.identical[later]));
    parts.push(el("section", { class: "panel", "data-later": later }, block));
    for (const [name, rows] of Object.entries(c.tables)) {
      if (name === "variants" || name === "best_response") continue;
      const mine = several ? rows.filter((r) => r.vs === later) : rows;
      if (!mine.length) continue;
      const table = name === "bids" ? bidTable(mine, pair) : metricTable(mine, pair);
      parts.push(el("section", { class: "panel", "data-table": name, "data-later": later },
        el("h3", {}, `${TITLES[name] || name}: ${later} against ${labels[0]}`),
        // the table scrolls in its own box on a phone, from the keyboard too
        el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${TITLES[name] || name}: ${later} against ${labels[0]}` }, table),
        sumNote(name, mine, pair)));
    }
  }
  const design = c.tables.design || [];
  const figures = acrossFigures(design, labels);
  if (figures.length) {
    parts.push(el("section", { class: "panel", "data-figures": "design" },
      el("h2", {}, "The designer's measures across the variants"),
      el("p", { class: "hint" }, "Each variant's value with its 95% interval (the base in green)"
        + (ticks(labels).key ? `, by ${ticks(labels).key}.` : ".")),
      el("div", { class: "figures" }, figures)));
  }
  answer.replaceChildren(...parts);
}

// --- start -----------------------------------------------------------------------------------

async function start() {
  chrome("/compare");
  [state.games] = await Promise.all([gameTable(), loadTerms()]);
  markStatic(document.querySelector("main"));
  const values = urlValues();
  $("game").replaceChildren(...Object.values(state.games).map((g) => el("option", { value: g.name }, g.title)));
  for (const id of ["hands", "games", "seed", ...ADAPT_SIZES]) if (values[id]) $(id).value = values[id][0];
  $("adapt").checked = ["1", "true", "on", "yes"].includes(((values.adapt || [""])[0]).toLowerCase());
  $("skill").checked = !["0", "false", "off", "no"].includes(((values.skill || [""])[0]).toLowerCase());
  const name = values.game && state.games[values.game[0]] ? values.game[0] : Object.keys(state.games)[0];
  chooseGame(name, values);
  $("game").addEventListener("change", () => chooseGame($("game").value));
  $("players").addEventListener("change", () => { state.policies.setPlayers(Number($("players").value)); changed(); });
  for (const id of ["hands", "games", "seed", "sweep-values", ...ADAPT_SIZES]) $(id).addEventListener("input", changed);
  for (const id of ["adapt", "skill"]) $(id).addEventListener("change", changed);
  $("sweep-key").addEventListener("change", () => { $("sweep-values").value = ""; sweepDoc(); changed(); });
  for (const id of ["mode-variants", "mode-sweep"]) $(id).addEventListener("change", () => { setMode(sweeping()); changed(); });
  $("add").addEventListener("click", () => {
    const used = new Set(state.variants.map((v) => v.labelInput.value.trim()));
    const label = "ABCDEFGH".split("").find((l) => !used.has(l)) || `V${state.variants.length + 1}`;
    addVariant(state.game, { label, sets: [] }, true);
    changed();
  });
  $("run").addEventListener("click", run);
  $("cancel").addEventListener("click", () => state.job && state.job.cancel());
}

start().catch((e) => { $("alert").textContent = e.message; });
