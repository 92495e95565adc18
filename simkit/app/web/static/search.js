// The compare page's search mode: `simkit search GAME --rule ... --goal ... --json` as a
// job. The rules searched (a range or values each), the goals (a target, a bound, or an
// objective to make small or large) and the sizes; Search runs it with progress and
// Cancel; the answer is the front table (each point's rules, each goal measure with its
// 95% interval, met or not, and a link to a full comparison of that setting against the
// base), the settings dominated or beaten, and a figure. The address holds every input
// (mode=search and the command's options), so that it can be shared.

import { api, checkCount, el, later, plainError, queryOf, replaceUrl, runJob } from "./common.js";
import { PolicyEditor, choicesOf, gameTable, rangeOf, rowProblem, same, urlValues } from "./forms.js";
import { val } from "./compare.js";

const $ = (id) => document.getElementById(id);
const MAX_RULES = 3, MAX_GOALS = 4;
const S = {
  games: null, game: null, measures: [], rules: [], goals: [], policies: null, job: null,
  limits: {}, valid: false, key: null, ran: null, serial: 0,
};
/** The count fields: their names in sentences and how their counts read. */
const COUNTS = {
  "s-trials": { label: "settings tried", unit: "settings", example: "30", limit: "trials" },
  "s-hands": { label: "hands per setting", unit: "hands", example: "20000", limit: "hands" },
  "s-games": { label: "games per setting", unit: "games", example: "2000", limit: "games" },
};
/** A goal's kinds: the command's operator, or an objective. */
const KINDS = [["=", "equal to"], ["<=", "at most"], [">=", "at least"],
  ["min", "as small as it goes"], ["max", "as large as it goes"]];
const LABELS = { rule: "rule", goal: "goal", trials: "settings tried", hands: "hands per setting",
  games: "games per setting", minimize: "goal", maximize: "goal" };

const searching = () => $("page-search").checked;
const nice = (key) => key.replaceAll("_", " ");

// --- the rules a search may range over ------------------------------------------------------

/** The game's rules a search can range over: a number with a range, or choices. */
function searchable(g) {
  return g.rules.filter((r) => {
    if (r.key === "players") return false;
    const range = rangeOf(r.accepted);
    return choicesOf(r.accepted) || (range && range.hi > range.lo);
  });
}

/** "KEY=LOW:HIGH" or "KEY=V1,V2" as {key, lo, hi, values}. */
function parseRule(text) {
  const [key, rest = ""] = String(text).split(/=(.*)/s);
  const range = rest.match(/^\s*([^:,]+):([^:,]+)\s*$/);
  if (range) return { key: key.trim(), lo: range[1].trim(), hi: range[2].trim() };
  const values = rest.split(",").map((t) => t.trim()).filter(Boolean);
  const nums = values.map(Number);
  if (values.length && nums.every(Number.isFinite)) {
    return { key: key.trim(), lo: String(Math.min(...nums)), hi: String(Math.max(...nums)), values: rest };
  }
  return { key: key.trim(), values: rest };
}

function ruleRow(given = {}) {
  const k = ++S.serial;
  const rows = searchable(S.game);
  const taken = new Set(S.rules.map((r) => r.key.value));
  const key = el("select", { id: `s-rule-${k}`, "aria-describedby": `s-rule-${k}-doc` },
    rows.map((r) => el("option", { value: r.key }, nice(r.key))));
  key.value = rows.some((r) => r.key === given.key) ? given.key
    : (rows.find((r) => r.key === "target" && !taken.has("target")) || rows.find((r) => !taken.has(r.key)) || rows[0]).key;
  const input = (id, label, value, placeholder) => {
    const inp = el("input", { id, type: "text", spellcheck: "false", autocomplete: "off", value: value ?? "",
      placeholder, "aria-describedby": `${id}-error` });
    return { inp, field: el("div", { class: "field" }, el("label", { for: id }, label), inp,
      el("p", { class: "field-error", id: `${id}-error`, "aria-live": "polite" })) };
  };
  const lo = input(`s-rule-${k}-lo`, "from", given.lo, "20");
  const hi = input(`s-rule-${k}-hi`, "to", given.hi, "80");
  const values = input(`s-rule-${k}-values`, "values, comma-separated", given.values, "a,b");
  const doc = el("p", { class: "hint", id: `s-rule-${k}-doc` });
  const remove = el("button", { type: "button", class: "small" }, "Remove");
  const box = el("div", { class: "sweep-row search-rule" },
    el("div", { class: "fields" }, el("div", { class: "field" }, el("label", { for: key.id }, "rule"), key),
      lo.field, hi.field, values.field), doc, remove);
  const r = { k, box, key, lo: lo.inp, hi: hi.inp, values: values.inp, doc, remove };
  const kind = () => {
    const row = S.game.rules.find((x) => x.key === key.value);
    const choices = choicesOf(row.accepted);
    lo.field.hidden = hi.field.hidden = !!choices;
    values.field.hidden = !choices;
    doc.textContent = `${row.doc} (accepted: ${row.accepted}; the base: ${row.default})`;
    remove.setAttribute("aria-label", `remove the rule ${nice(row.key)}`);
    return { row, choices };
  };
  /** A first range around the rule book's value (half to twice it), within what it takes. */
  const fill = () => {
    const { row, choices } = kind();
    const range = rangeOf(row.accepted);
    const d = Number(row.default);
    values.inp.value = choices ? choices.join(",") : "";
    if (!range) return;
    const int = (v) => (range.integer ? Math.round(v) : Math.round(v * 100) / 100);
    const a = Math.max(range.lo, int(d / 2)), b = Math.min(range.hi, int(d > 0 ? 2 * d : range.hi));
    lo.inp.value = String(a < b ? a : range.lo);
    hi.inp.value = String(a < b ? b : range.hi);
  };
  key.addEventListener("change", () => { fill(); changed(); });
  for (const inp of [lo.inp, hi.inp, values.inp]) inp.addEventListener("input", changed);
  remove.addEventListener("click", () => {
    S.rules.splice(S.rules.indexOf(r), 1);
    box.remove();
    changed();
    $("s-add-rule").focus();
  });
  if (given.key !== key.value || (given.lo === undefined && given.values === undefined)) fill();
  else kind();
  S.rules.push(r);
  $("s-rules").append(box);
  return r;
}

const ruleText = (r) => {
  const choices = choicesOf(S.game.rules.find((x) => x.key === r.key.value).accepted);
  return choices ? `${r.key.value}=${r.values.value.split(",").map((t) => t.trim()).filter(Boolean).join(",")}`
    : `${r.key.value}=${r.lo.value.trim()}:${r.hi.value.trim()}`;
};

// --- the goals -------------------------------------------------------------------------

const measureOf = (name) => S.measures.find((m) => m.name === name || m.key === name);

/** "MEASURE=VALUE" (or <=, >=) as {kind, measure, value}. */
function parseGoal(text) {
  const m = String(text).match(/^(.*?)\s*(<=|>=|=)\s*([^=<>]*)$/s);
  return m ? { kind: m[2], measure: m[1].trim(), value: m[3].trim() } : { kind: "=", measure: text, value: "" };
}

function goalRow(given = {}) {
  const k = ++S.serial;
  const kind = el("select", { id: `s-goal-${k}-kind` }, KINDS.map(([v, t]) => el("option", { value: v }, t)));
  kind.value = KINDS.some(([v]) => v === given.kind) ? given.kind : "=";
  const measure = el("select", { id: `s-goal-${k}-measure`, "aria-describedby": `s-goal-${k}-doc` },
    S.measures.map((m) => el("option", { value: m.name }, m.name)));
  const m0 = measureOf(given.measure || "") || S.measures.find((m) => m.key === "hands_per_game_mean"
    || m.key === "turns_per_game_mean") || S.measures[0];
  if (m0) measure.value = m0.name;
  const valueId = `s-goal-${k}-value`;
  const value = el("input", { id: valueId, type: "text", spellcheck: "false", autocomplete: "off",
    value: given.value ?? "", "aria-describedby": `${valueId}-error s-goal-${k}-doc` });
  const valueField = el("div", { class: "field" }, el("label", { for: valueId }, "value"), value,
    el("p", { class: "field-error", id: `${valueId}-error`, "aria-live": "polite" }));
  const doc = el("p", { class: "hint", id: `s-goal-${k}-doc` });
  const remove = el("button", { type: "button", class: "small", "aria-label": "remove this goal" }, "Remove");
  const box = el("div", { class: "sweep-row search-goal" },
    el("div", { class: "fields" },
      el("div", { class: "field wide" }, el("label", { for: measure.id }, "measure"), measure),
      el("div", { class: "field aim" }, el("label", { for: kind.id }, "aim"), kind), valueField), doc, remove);
  const g = { k, box, kind, measure, value, valueField, doc, remove };
  const show = () => {
    const m = measureOf(measure.value);
    valueField.hidden = ["min", "max"].includes(kind.value);
    doc.textContent = m ? `${m.meaning}; ${m.kind === "rate" ? "a share: 0.01 or 1%" : "a mean, in its own unit"}` : "";
    value.placeholder = m && m.kind === "rate" ? "1%" : "15";
  };
  for (const x of [kind, measure]) x.addEventListener("change", () => { show(); changed(); });
  value.addEventListener("input", changed);
  remove.addEventListener("click", () => {
    S.goals.splice(S.goals.indexOf(g), 1);
    box.remove();
    changed();
    $("s-add-goal").focus();
  });
  show();
  S.goals.push(g);
  $("s-goals").append(box);
  return g;
}

/** The kinds of deals the goals' measures are played in ("hand", "game"). */
const unitsNeeded = () => new Set(S.goals.map((g) => (measureOf(g.measure.value) || {}).unit).filter(Boolean));

// --- the options, checked ------------------------------------------------------------------

function pairs() {
  const g = S.game;
  const out = [["game", g.name]];
  for (const r of S.rules) out.push(["rule", ruleText(r)]);
  for (const goal of S.goals) {
    const k = goal.kind.value;
    if (k === "min" || k === "max") out.push([k === "min" ? "minimize" : "maximize", goal.measure.value]);
    else out.push(["goal", `${goal.measure.value}${k}${goal.value.value.trim()}`]);
  }
  if (Number($("s-players").value) !== g.default_players) out.push(["players", $("s-players").value]);
  out.push(...S.policies.pairs());
  out.push(["trials", $("s-trials").value.trim()]);
  const units = unitsNeeded();
  for (const u of ["hand", "game"]) {
    const t = $(`s-${u}s`).value.trim();
    if (units.has(u) && t) out.push([`${u}s`, t]);
  }
  out.push(["seed", $("s-seed").value.trim()]);
  return out;
}

function mostOf(id) {
  const l = S.limits[COUNTS[id].limit];
  return typeof l === "number" ? l : Infinity;
}

/** Every field's problem now: {id: sentence}. */
function problems() {
  const out = {};
  const units = unitsNeeded();
  for (const [id, f] of Object.entries(COUNTS)) {
    const t = $(id).value.trim();
    if (id !== "s-trials" && (t === "" || !units.has(id.slice(2, -1)))) continue;
    const r = /^[0-9]+$/.test(t) || t === "" ? checkCount(t, { label: f.label, unit: f.unit, most: mostOf(id), example: f.example })
      : { error: `${f.label}: '${t}' is not a whole number: write the number of ${f.unit} in digits, e.g. ${f.example}` };
    if (r.error) out[id] = r.error;
  }
  const seed = $("s-seed").value.trim();
  if (!/^[0-9]+$/.test(seed)) out["s-seed"] = `seed: '${seed}' is not a whole number: write one from 0 up, e.g. 0`;
  const seen = new Set();
  for (const r of S.rules) {
    const row = S.game.rules.find((x) => x.key === r.key.value);
    const name = nice(row.key);
    const choices = choicesOf(row.accepted);
    if (seen.has(row.key)) out[r.values.id] = out[r.lo.id] = `${name} is searched already: choose another rule`;
    seen.add(row.key);
    if (choices) {
      const vals = r.values.value.split(",").map((t) => t.trim()).filter(Boolean);
      const bad = vals.find((v) => !choices.some((c) => same(c, v)));
      if (vals.length < 2) out[r.values.id] = `values of ${name}: give two or more, comma-separated, e.g. ${choices.slice(0, 2).join(",")}`;
      else if (bad !== undefined) out[r.values.id] = `values of ${name}: '${bad}' is not one of ${choices.join(", ")}`;
      continue;
    }
    for (const [inp, which] of [[r.lo, "from"], [r.hi, "to"]]) {
      const p = rowProblem(row, inp.value);
      if (p) out[inp.id] = `${which}: ${p.replace(/^[^:]*: /, "")}`;
    }
    if (!out[r.lo.id] && !out[r.hi.id] && !(Number(r.lo.value) < Number(r.hi.value))) {
      out[r.hi.id] = `to: ${r.hi.value.trim()} is not above ${r.lo.value.trim()}: the range goes from the lower value to the higher`;
    }
  }
  for (const g of S.goals) {
    if (g.valueField.hidden) continue;
    const t = g.value.value.trim();
    if (!/^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[-+]?[0-9]+)?%?$/i.test(t)) {
      out[g.value.id] = t ? `value: '${t}' is not a number: write one, e.g. ${g.value.placeholder}` : `value: give the value to aim at, e.g. ${g.value.placeholder}`;
    }
  }
  return out;
}

function errorIds() {
  return [...Object.keys(COUNTS), "s-seed", ...S.rules.flatMap((r) => [r.lo.id, r.hi.id, r.values.id]),
    ...S.goals.map((g) => g.value.id)];
}

function changed() {
  if (!S.policies || !searching()) return;
  const units = unitsNeeded();
  $("s-hands-field").hidden = !units.has("hand");
  $("s-games-field").hidden = !units.has("game");
  const found = problems();
  for (const id of errorIds()) {
    const box = $(`${id}-error`);
    if (!box) continue;
    const msg = found[id] || "";
    if (box.textContent !== msg) box.textContent = msg;
    $(id).setAttribute("aria-invalid", msg ? "true" : "false");
  }
  const more = S.policies.problems();
  const waiting = [...Object.values(found).map((m) => m.split(":")[0]), ...more.map((p) => nice(p.key))];
  if (!S.rules.length) waiting.push("a rule to search");
  if (!S.goals.length) waiting.push("a goal");
  S.valid = !waiting.length;
  $("s-run").dataset.invalid = S.valid ? "0" : "1";
  $("s-run").disabled = !S.valid || !!S.job;
  $("s-add-rule").disabled = S.rules.length >= MAX_RULES;
  $("s-add-goal").disabled = S.goals.length >= MAX_GOALS;
  for (const r of S.rules) r.remove.hidden = S.rules.length < 2;
  for (const g of S.goals) g.remove.hidden = S.goals.length < 2;
  const pol = S.policies.pairs();
  $("s-policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : S.game.default_policy;
  replaceUrl([["mode", "search"], ...pairs()]);
  S.key = null;
  if (!S.job) $("s-estimate").textContent = waiting.length ? `Search waits for: ${[...new Set(waiting)].join(", ")}` : "";
  estimateSoon();
}

const estimateSoon = later(async () => {
  if (S.job || !S.valid || !searching()) return;
  const p = pairs();
  const key = queryOf(p);
  S.key = key;
  $("s-estimate").textContent = "expected time: estimating…";
  try {
    const e = await api(`/api/estimate?${queryOf([["command", "search"], ...p])}`);
    if (S.key === key && !S.job) { $("s-estimate").textContent = `expected time: ${e.text}`; $("s-alert").textContent = ""; }
  } catch (err) {
    if (S.key !== key || S.job) return;
    $("s-estimate").textContent = "";
    $("s-alert").textContent = plainError(err.message, LABELS);
  }
}, 400);

// --- the page's mode and game --------------------------------------------------------------

async function chooseGame(name, values = {}) {
  const g = S.games[name];
  S.game = g;
  $("s-game").value = name;
  const P = Number((values.players || [])[0]);
  $("s-players").replaceChildren(...g.players.map((p) => el("option", { value: p }, `${p} players`)));
  $("s-players").value = g.players.includes(P) ? P : g.default_players;
  const players = Number($("s-players").value);
  S.measures = (await api(`/api/measures?${queryOf([["game", g.name], ["players", players]])}`)).measures;
  S.rules = [];
  S.goals = [];
  $("s-rules").replaceChildren();
  $("s-goals").replaceChildren();
  for (const t of values.rule || [""]) ruleRow(t ? parseRule(t) : {});
  const goals = [...(values.goal || []).map(parseGoal), ...(values.minimize || []).map((m) => ({ kind: "min", measure: m })),
    ...(values.maximize || []).map((m) => ({ kind: "max", measure: m }))];
  for (const goal of goals.length ? goals : [{ kind: "=", value: "" }]) goalRow(goal);
  S.policies = new PolicyEditor($("s-policies"), g, players, values.policy || [], { onChange: changed, id: "s-pol" });
  $("s-answer").hidden = true;
  changed();
}

/** Show one mode: its inputs, and the page's heading (and tab title) saying what it does. */
function setMode(search, update = true) {
  $("page-search").checked = search;
  $("page-compare").checked = !search;
  $("search-mode").hidden = !search;
  $("compare-mode").hidden = search;
  const title = search ? "Search rule settings" : "Compare rule variants";
  document.querySelector(".heading h1").textContent = title;
  document.querySelector(".heading p").hidden = search;       // it tells how compare works
  document.title = `${title} · simkit`;
  if (update) changed();
}

// --- the answer --------------------------------------------------------------------------------

const finite = (v) => typeof v === "number" && Number.isFinite(v);
const isRate = (res, name) => (res.goals.find((g) => g.measure === name) || {}).kind === "rate";
const measureNames = (res) => [...new Set(res.goals.map((g) => g.measure))];
const searchedKeys = (res) => res.searched.map((t) => t.split("=")[0]);

/** The policies that played, as compare says it ("heuristic at every seat"). */
function playedText(res) {
  const g = S.games[res.game];
  const short = (t) => {
    const [name, rest] = t.split(/:(.*)/s);
    const pol = g.policies.find((p) => p.name === name);
    const defaults = Object.fromEntries((pol ? pol.params : []).map((r) => [r.key, r.default]));
    const diff = (rest || "").split(",").filter((kv) => kv && String(defaults[kv.split("=")[0]]).toLowerCase() !== String(kv.split("=")[1]).toLowerCase());
    return diff.length ? `${name}:${diff.join(",")}` : name;
  };
  const all = [...new Set(res.policies)];
  return all.length === 1 ? `${short(all[0])} at every seat` : res.policies.map(short).join(" | ");
}

/** The address of a full comparison of ``rules`` (variant B) against the base (A). */
function compareHref(res, rules) {
  const sets = Object.entries(rules).map(([k, v]) => `${k}=${v}`).join(",");
  const p = [["game", res.game], ["variant", "A:"], ["variant", `B:${sets}`]];
  if (res.players !== S.games[res.game].default_players) p.push(["players", String(res.players)]);
  p.push(...(S.ran || []).filter(([k]) => k === "policy"));
  if (res.units.hand && S.games[res.game].unit !== "game") p.push(["hands", String(res.units.hand)]);
  if (res.units.game) p.push(["games", String(res.units.game)]);
  p.push(["seed", String(res.seed)]);
  return `/compare?${queryOf(p)}`;
}

/** A measure's cell: its value and, under it, its 95% interval (none: the search's deals only). */
function valueCell(res, name, m) {
  const rate = isRate(res, name);
  if (m === undefined || m === null) return el("td", {}, "–");
  const v = typeof m === "number" ? m : m.value;
  const td = el("td", { "data-measure": name, "data-value": JSON.stringify(finite(v) ? v : null) }, el("span", {}, val(v, rate)));
  if (typeof m === "object" && finite(m.ci_low) && finite(m.ci_high)) td.append(el("span", { class: "ci" }, `[${val(m.ci_low, rate)}, ${val(m.ci_high, rate)}]`));
  else if (typeof m === "number") td.append(el("span", { class: "ci" }, "search's deals"));
  return td;
}

const SYMBOL = { "=": "=", "<=": "≤", ">=": "≥" };
/** A target's or a bound's words: "contracts made ≥ 50%". */
const goalText = (res, g) => `${g.measure} ${SYMBOL[g.op]} ${val(g.value, isRate(res, g.measure))}`;

/** Each setting once (a search may try one several times), with how often it was tried. */
function once(points) {
  const seen = new Map();
  for (const p of points) {
    const key = JSON.stringify(p.rules);
    if (seen.has(key)) seen.get(key).times += 1;
    else seen.set(key, { ...p, times: 1 });
  }
  return [...seen.values()];
}

/** The front's (or the dominated settings') table: a row per setting. */
function pointTable(res, points, { base = false, links = true, caption }) {
  const keys = searchedKeys(res), names = measureNames(res);
  const aims = res.goals.filter((g) => ["=", "<=", ">="].includes(g.op));
  const head = el("tr", {}, ...keys.map((k) => el("th", { class: "left" }, nice(k))),
    ...names.map((n) => el("th", { class: "wrap" }, n, " ", el("span", { class: "ci-head" }, "[95% CI]"))),
    ...aims.map((g) => el("th", { class: "wrap" }, goalText(res, g))));
  const row = (p, isBase) => {
    const setting = keys.map((k) => `${nice(k)} ${p.rules[k]}`).join(", ");
    return el("tr", { "data-point": isBase ? "base" : String(p.trial ?? p.number), "data-rules": JSON.stringify(p.rules) },
      // the link to the comparison under the setting, in sight on a phone too
      ...keys.map((k, i) => el("td", { class: "left" }, String(p.rules[k] ?? "–"), isBase && i === 0 ? el("span", { class: "ci" }, "the base") : null,
        p.times > 1 && i === keys.length - 1 ? el("span", { class: "ci" }, `tried ${p.times} times`) : null,
        links && !isBase && i === keys.length - 1 ? el("a", { class: "point-link", href: compareHref(res, p.rules), "aria-label": `compare with the base: ${setting}` }, "compare with the base") : null)),
      ...names.map((n) => valueCell(res, n, (p.measures || {})[n])),
      ...aims.map((g) => {
        const met = (p.meets || {})[g.goal];
        if (isBase || met === undefined) return el("td", {}, "–");
        return el("td", { class: met ? "met" : "unmet", "data-met": String(met) }, met ? "met" : "not met");
      }));
  };
  const body = [...(base ? [row({ rules: res.base.rules, measures: res.base.measures }, true)] : []), ...points.map((p) => row(p, false))];
  return el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": caption },
    el("table", { class: "data search-table" }, el("thead", {}, head), el("tbody", {}, body)));
}

const NS = "http://www.w3.org/2000/svg";
const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const FRONT = "#b3261e", OTHER = "#b8860b", TRIAL = "#b9b19a";

/** An axis's ends (a little added either side, rounded outwards to the digits their
 *  labels show; ``exact``: the ends as given), and its scale onto [a, b]. */
function axis(values, a, b, exact = false) {
  const xs = values.filter(finite);
  let lo = xs.length ? Math.min(...xs) : 0, hi = xs.length ? Math.max(...xs) : 1;
  if (!exact) {
    const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 0.5;
    const step = 10 ** Math.floor(Math.log10((hi - lo + 2 * pad) / 2));
    lo = Math.floor((lo - pad) / step) * step;
    hi = Math.ceil((hi + pad) / step) * step;
  }
  if (hi === lo) { lo -= 0.5; hi += 0.5; }
  return { lo, hi, at: (v) => a + ((v - lo) / (hi - lo)) * (b - a) };
}

/** The searched range of ``key`` ("target=20:60" -> [20, 60]), or null. */
function rangeSearched(res, key) {
  const t = res.searched.find((x) => x.split("=")[0] === key) || "";
  const m = t.match(/=([^:,]+):([^:,]+)$/);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The figure: two objectives as a scatter (every trial grey by its search values, the
 *  front red with its 95% intervals on both axes, other confirmed settings gold); one
 *  measure against the first searched rule (the goal's value dashed) otherwise. */
function figure(res) {
  const names = measureNames(res);
  const objectives = res.goals.filter((g) => g.objective).map((g) => g.measure);
  const two = objectives.length >= 2;
  const W = 320, H = 240, L = 52, R = 10, T = 12, B = 44;
  const key = searchedKeys(res)[0];
  const yName = two ? objectives[1] : objectives[0] || names[0];
  const xName = two ? objectives[0] : key;
  const front = res.tables.front || [];
  const others = (res.tables.confirmed || []).filter((c) => !front.some((f) => f.trial === c.trial));
  const ruleValues = [...new Set(res.trials.map((t) => t.rules[key]))];
  const numeric = !two && ruleValues.every((v) => typeof v === "number");
  const cats = numeric ? [] : [...ruleValues].sort();
  const xOf = (p, m) => (two ? (typeof m === "number" ? m : m && m.value) : numeric ? p.rules[key] : cats.indexOf(p.rules[key]));
  const pm = (p, n) => (p.measures || {})[n];
  const yv = (m) => (typeof m === "number" ? m : m && m.value);
  const all = [...res.trials, ...front, ...others];
  const xs = all.flatMap((p) => { const m = pm(p, xName); return two ? [yv(m), m && m.ci_low, m && m.ci_high] : [xOf(p)]; });
  const goal = res.goals.find((g) => g.measure === yName && ["=", "<=", ">="].includes(g.op));
  const ys = [...all.flatMap((p) => { const m = pm(p, yName); return [yv(m), m && m.ci_low, m && m.ci_high]; }), goal ? goal.value : NaN];
  const range = !two && numeric && rangeSearched(res, key);
  const X = range ? axis([range[0] - (range[1] - range[0]) * 0.04, range[1] + (range[1] - range[0]) * 0.04], L, W - R, true)
    : axis(two ? xs : [-0.5, cats.length - 0.5], L, W - R, !two);
  const Y = axis(ys, H - B, T);
  const xRate = two && isRate(res, xName), yRate = isRate(res, yName);
  const fmtX = (v) => (two ? val(v, xRate) : numeric ? String(Math.round(v * 100) / 100) : "");
  let inner = `<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="#fffdf6" stroke="#d8d0b8"/>`;
  inner += `<text x="${L - 4}" y="${T + 10}" text-anchor="end" class="tick">${esc(val(Y.hi, yRate))}</text>`
    + `<text x="${L - 4}" y="${H - B}" text-anchor="end" class="tick">${esc(val(Y.lo, yRate))}</text>`;
  if (range) {
    for (const v of range) inner += `<text x="${X.at(v)}" y="${H - B + 15}" text-anchor="middle" class="tick">${esc(fmtX(v))}</text>`;
  } else if (numeric || two) {
    inner += `<text x="${L}" y="${H - B + 15}" text-anchor="start" class="tick">${esc(fmtX(X.lo))}</text>`
      + `<text x="${W - R}" y="${H - B + 15}" text-anchor="end" class="tick">${esc(fmtX(X.hi))}</text>`;
  } else {
    cats.forEach((c, i) => { inner += `<text x="${X.at(i)}" y="${H - B + 15}" text-anchor="middle" class="tick">${esc(String(c))}</text>`; });
  }
  inner += `<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle" class="axis-name">${esc(two ? xName : nice(xName))}</text>`;
  if (goal) {
    const y = Y.at(goal.value);
    inner += `<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#5b5443" stroke-dasharray="5 4"/>`
      + `<text x="${L + 4}" y="${y - 4}" text-anchor="start" class="tick">goal ${esc(SYMBOL[goal.op])} ${esc(val(goal.value, yRate))}</text>`;
  }
  const dot = (p, colour, r, cls) => {
    const mx = pm(p, xName), my = pm(p, yName);
    const x = two ? yv(mx) : xOf(p), y = yv(my);
    if (!finite(x) || !finite(y)) return "";
    let out = "";
    if (my && finite(my.ci_low)) out += `<line x1="${X.at(x)}" x2="${X.at(x)}" y1="${Y.at(my.ci_low)}" y2="${Y.at(my.ci_high)}" stroke="${colour}" stroke-width="2.5" stroke-linecap="round"/>`;
    if (two && mx && finite(mx.ci_low)) out += `<line x1="${X.at(mx.ci_low)}" x2="${X.at(mx.ci_high)}" y1="${Y.at(y)}" y2="${Y.at(y)}" stroke="${colour}" stroke-width="2.5" stroke-linecap="round"/>`;
    return `${out}<circle class="${cls}" cx="${X.at(x)}" cy="${Y.at(y)}" r="${r}" fill="${colour}" stroke="#fff" stroke-width="1"/>`;
  };
  for (const t of res.trials) inner += dot(t, TRIAL, 3, "trial");
  for (const c of others) inner += dot(c, OTHER, 4.5, "confirmed");
  for (const f of front) inner += dot(f, FRONT, 5, "front");
  const s = document.createElementNS(NS, "svg");
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  s.setAttribute("class", "search-figure");
  s.setAttribute("role", "img");
  const said = front.map((f) => `${Object.entries(f.rules).map(([k, v]) => `${nice(k)} ${v}`).join(", ")}: ${val(yv(pm(f, yName)), yRate)}`);
  s.setAttribute("aria-label", `${yName} against ${two ? xName : nice(xName)}, ${res.trials.length} settings tried; the ${two ? "front" : "answer"}: ${said.join("; ")}`);
  s.innerHTML = inner;
  const how = two ? `${xName} (across) against ${yName} (up)` : `${yName} (up) against ${nice(key)} (across)`;
  return el("figure", { class: "search-figure" }, el("figcaption", {}, how), s,
    el("p", { class: "hint legend" }, el("span", { class: "key", style: `color:${TRIAL}` }, "●"), " a setting tried, on the search's deals; ",
      el("span", { class: "key", style: `color:${FRONT}` }, "●"), two ? " the front" : " the answer", ", confirmed on fresh deals with its 95% interval",
      others.length ? [", ", el("span", { class: "key", style: `color:${OTHER}` }, "●"), " other settings confirmed"] : "",
      goal ? "; dashed: the goal" : "", "."));
}

function show(res) {
  const g = S.games[res.game];
  const units = Object.entries(res.units).map(([u, n]) => `${n.toLocaleString("en")} ${u}s`).join(" and ");
  const front = res.tables.front || [];
  const dominated = res.tables.dominated || [];
  const parts = [el("section", { class: "panel", "data-part": "head" },
    el("h2", {}, `${g.title}: a search of ${res.searched.map((t) => nice(t)).join(", ")}`),
    el("p", { class: "hint" }, `${res.players} players; ${res.trials.length} settings tried (${res.pruned} stopped early), `
      + `${units} each, seed ${res.seed}. Goals: ${res.goals.map((x) => x.goal).join("; ")}.`),
    el("p", { class: "callout", "data-answer": JSON.stringify(res.answer.met) }, res.answer_text.replace("(the table above)", "(the table below)")),
    el("p", { class: "hint played" }, "Played by ", el("code", {}, playedText(res)),
      ": the same players at every setting, not adapted to each setting's rules.")),
  el("section", { class: "panel", "data-table": "front" },
    el("h2", {}, res.several ? "The front" : "The answer"),
    el("p", { class: "hint" }, (res.several ? "The settings no other beats on every objective" : "The best setting")
      + ", confirmed on fresh deals, under the base for scale: each goal measure with its 95% interval, whether each goal is met, and a link to a full comparison of that setting against the base."),
    pointTable(res, front, { base: true, caption: "the front, one row per setting" }),
    figure(res))];
  if (dominated.length) {
    parts.push(el("section", { class: "panel", "data-table": "dominated" },
      el("h2", {}, "Dominated or beaten"),
      el("p", { class: "hint" }, "The other settings: those confirmed but beaten on the fresh deals (with an interval), then the other settings tried, by their values on the search's deals (read as a hint, not a finding)."),
      pointTable(res, once(dominated), { caption: "dominated or beaten settings" })));
  }
  $("s-answer").replaceChildren(...parts);
  $("s-answer").hidden = false;
}

function run() {
  if (!S.valid || S.job) return null;
  S.ran = pairs();
  return runJob(S, "search", S.ran, {
    button: $("s-run"), cancel: $("s-cancel"), progress: $("s-progress"), bar: $("s-bar"),
    percent: $("s-percent"), eta: $("s-eta"), estimate: $("s-estimate"), alert: $("s-alert"),
  }, show);
}

// --- start -------------------------------------------------------------------------------

async function start() {
  const values = urlValues();
  const search = (values.mode || [""])[0] === "search";
  setMode(search, false);
  // the switch works at once, before the games and measures have come
  for (const id of ["page-compare", "page-search"]) $(id).addEventListener("change", () => setMode(searching()));
  let lim;
  [S.games, lim] = await Promise.all([gameTable(), api("/api/limits").catch(() => null)]);
  S.limits = (lim && lim.search) || {};
  $("s-game").replaceChildren(...Object.values(S.games).map((g) => el("option", { value: g.name }, g.title)));
  for (const id of ["trials", "hands", "games", "seed"]) if (search && values[id]) $(`s-${id}`).value = values[id][0];
  const name = search && values.game && S.games[values.game[0]] ? values.game[0] : Object.keys(S.games)[0];
  await chooseGame(name, search ? values : {});
  $("s-game").addEventListener("change", () => chooseGame($("s-game").value).catch(fail));
  $("s-players").addEventListener("change", () => { S.policies.setPlayers(Number($("s-players").value)); changed(); });
  for (const id of ["s-trials", "s-hands", "s-games", "s-seed"]) $(id).addEventListener("input", changed);
  $("s-policies").addEventListener("input", changed);
  $("s-add-rule").addEventListener("click", () => { ruleRow().key.focus(); changed(); });
  $("s-add-goal").addEventListener("click", () => { goalRow().measure.focus(); changed(); });
  $("s-run").addEventListener("click", run);
  $("s-cancel").addEventListener("click", () => S.job && S.job.cancel());
}

const fail = (e) => { $("s-alert").textContent = plainError(e.message, LABELS); };
start().catch(fail);
