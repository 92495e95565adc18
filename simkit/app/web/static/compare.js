// Compare: two to eight rule variants of any game on the same deals, or a sweep of one
// rule or a grid of several, as `simkit compare --json` gives them: each later variant
// against the first (the base), every measure's paired difference with its interval, p,
// Holm's p and finding (higher, lower, no change, not shown either way, depends on
// adaptation); a sweep's grid with its headline measures; the designer's measures with a
// figure across the variants; the policies each variant played with (adapted to its rules
// or not, each adaptation's), and with adapted players the best-response check.
//
// Every input is checked as it is typed, its error shown on its own field in the page's
// words, and Compare waits until they are all right; a refusal of the server is put on
// the field it names.

import { api, checkCount, chrome, el, later, optionOfError, plainError, pvalue, queryOf, replaceUrl, runJob } from "./common.js";
import { PolicyEditor, RulesEditor, choicesOf, gameTable, rangeOf, rowProblem, same, urlValues } from "./forms.js";
import { explain, explained, loadTerms, markStatic, termOf } from "./terms.js";
import { term } from "./glossary.js";

const $ = (id) => document.getElementById(id);
const MAX = 8;
/** The adaptation's sizes a page may set (blank: the command's defaults). */
const ADAPT_SIZES = ["adapt-seeds", "adapt-rounds", "adapt-trials", "adapt-games"];
const state = {
  games: null, game: null, variants: [], sweeps: [], policies: null, job: null, key: null,
  limits: {}, valid: false,
  serverErrors: {},       // field id -> the server's refusal, shown on it until the field changes
};

/** The page's own fields: their names in sentences and how their counts read. The most
 *  each takes is the CLI's, or the web app's (/api/limits) where that is less. */
const FIELDS = {
  hands: { label: "hands per variant", unit: "hands", example: "100000" },
  games: { label: "games per variant", unit: "games", example: "2000" },
  seed: { label: "seed" },
  "adapt-seeds": { label: "adaptations of each variant", unit: "adaptations", example: "2", most: 16 },
  "adapt-rounds": { label: "rounds, at most", unit: "rounds", example: "6", most: 50 },
  "adapt-trials": { label: "settings tried a round", unit: "settings", example: "32", most: 100000 },
  "adapt-games": { label: "games a setting plays", unit: "games", example: "3000" },
};
/** The options' names in the page's words (plainError). */
const LABELS = { ...Object.fromEntries(Object.entries(FIELDS).map(([k, f]) => [k, f.label])),
  sweep: "sweep", variant: "variant", players: "players", policy: "policy" };

/** The words of the measures the glossary explains (each marked once per table). */
const WORDS = {
  Ndogo: "ndogo", Kubwa: "kubwa", "thrown-in": "thrown in", "thrown in": "thrown in", moons: "moon",
  moon: "moon", pitcher: "pitcher", pitched: "pitcher", session: "session", pickups: "pickup",
  pickup: "pickup", burns: "burn", starter: "starter", pozzetto: "pozzetto", burraco: "burraco",
  burracos: "burraco", "wild cards": "wild", sets: "meld", sequences: "meld", closed: "closed",
  "contracts made": "made", "contract level": "pepper-bid", comeback: "comeback", comebacks: "comeback",
  "lead changes": "drama", drama: "drama", position: "position", balance: "balance",
  "equal shares": "balance", completion: "completion", "hands per game": "duration",
  "turns per game": "duration", length: "duration", skill: "skill",
};

/** A table heading that explains its word (p, Holm's p, the 95% interval). */
function th(text, word = null, cls = "nowrap") {
  const t = word && termOf(word);
  return el("th", { class: cls }, t ? term(t.key, null, text) : text);
}

// --- numbers as people read them (as simkit/lab/compare_text.py writes them) -------------

const MINUS = "\u2212";
const finite = (v) => typeof v === "number" && Number.isFinite(v);

/** Decimals that show one significant digit of an interval's half-width (``_decimals``). */
export function decimals(half, least = 0) {
  if (!(finite(half) && half > 0)) return least;
  return Math.max(least, Math.min(6, -Math.floor(Math.log10(half))));
}

/** ``x`` with its sign and ``k`` decimals, never a negative zero: a value that rounds to 0
 *  but is not 0 gets the decimals it needs; an exact 0 is "0" (``_signed``). */
export function signedText(x, k, unit = "") {
  if (x === 0) return "0" + unit;
  while (Number(x.toFixed(k)) === 0 && k < 9) k += 1;
  const t = x.toFixed(k);
  return (t.startsWith("-") ? MINUS + t.slice(1) : "+" + t) + unit;
}

/** A number with at most ``k`` decimals, thousands grouped, the minus sign a minus, never
 *  a negative zero (a value that rounds to 0 but is not 0 gets more decimals). */
function plain(x, k) {
  if (x === 0) return "0";
  while (Number(x.toFixed(k)) === 0 && k < 9) k += 1;
  const t = Math.abs(x).toLocaleString("en", { minimumFractionDigits: k, maximumFractionDigits: k });
  return (x < 0 ? MINUS : "") + t;
}

/** A difference and its interval (``_diff``): ``{d, ci}`` texts, rates in percentage points
 *  with at least one decimal, the decimals the interval's half-width asks for. */
export function diffParts(d, lo, hi, rate) {
  if (!finite(d)) return { d: "–", ci: "", k: 0 };
  if (d === 0 && lo === 0 && hi === 0) return { d: "0", ci: "[0, 0]", k: 0 };
  const scale = rate ? 100 : 1, unit = rate ? " pp" : "";
  const both = finite(lo) && finite(hi);
  const k = decimals(both ? ((hi - lo) / 2) * scale : NaN, rate ? 1 : 0);
  return { d: signedText(d * scale, k, unit), ci: both ? `[${signedText(lo * scale, k)}, ${signedText(hi * scale, k)}]` : "", k };
}

/** A value as people read it (``_val``): "never"; a rate in percent (two decimals, none
 *  for a whole percentage); a whole number without decimals; else three significant
 *  decimals at most. */
export function val(x, rate, never = false) {
  if (never) return "never";
  if (!finite(x)) return "–";
  if (rate) {
    const p = 100 * x;
    return `${Math.abs(p - Math.round(p)) < 1e-9 ? plain(Math.round(p), 0) : plain(p, 2)}%`;
  }
  if (Number.isInteger(x)) return plain(x, 0);
  const a = Math.abs(x);
  return plain(x, a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

/** A p-value: "1" rather than "1.000". */
const pText = (p) => (p === 1 ? "1" : pvalue(p));

// --- the inputs --------------------------------------------------------------------------

/** A variant as the address gives it: "LABEL:key=value,...", "LABEL:preset,key=value" or a
 *  preset's name alone: its label, preset and settings. */
function parseVariant(g, text) {
  const t = String(text).trim();
  const i = t.indexOf(":");
  const named = (w) => w !== "seed" && g.presets[w] !== undefined;
  if (i < 0 && named(t)) return { label: t, preset: t, sets: [] };
  const label = i < 0 ? t : t.slice(0, i);
  const items = i < 0 ? [] : t.slice(i + 1).split(",").map((s) => s.trim()).filter(Boolean);
  const preset = items.find((s) => !s.includes("=") && named(s));
  const sets = items.filter((s) => s.includes("="));
  return preset ? { label, preset, sets } : { label, ...presetOf(g, sets) };
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

/** A sweep row's values as given, trimmed. */
const valuesOf = (s) => s.values.value.split(",").map((t) => t.trim()).filter(Boolean);

function pairs() {
  const g = state.game;
  const out = [["game", g.name]];
  // a sweep: one variant per value (per point of the grid), the first the base, on the
  // rule book's other rules
  if (!sweeping()) for (const v of state.variants) out.push(["variant", variantText(v)]);
  if (sweeping()) for (const s of state.sweeps) out.push(["sweep", `${s.key.value}=${valuesOf(s).join(",")}`]);
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

// --- checking the inputs before the server does ----------------------------------------

/** The most a count field takes: the web app's limit, else the command's. */
function mostOf(id) {
  const lim = state.limits || {};
  const own = FIELDS[id].most ?? Infinity;
  let l = lim[id];
  if (l && typeof l === "object") l = l[state.game.name];
  return typeof l === "number" ? Math.min(own, l) : own;
}

function countProblem(id) {
  const f = FIELDS[id];
  const t = $(id).value.trim();
  // the command takes digits only ("+5" and "1,000" are refused)
  if (t !== "" && !/^[0-9]+$/.test(t)) {
    return `${f.label}: '${t}' is not a whole number: write the number of ${f.unit} in digits, e.g. ${f.example}`;
  }
  const r = checkCount(t, { label: f.label, unit: f.unit, most: mostOf(id), example: f.example });
  return r.error || null;
}

function seedProblem(text) {
  const t = text.trim();
  if (!/^[0-9]+$/.test(t)) return `seed: '${t}' is not a whole number: write one from 0 up, e.g. 0`;
  if (BigInt(t) >= 2n ** 64n) return "seed: at most 18,446,744,073,709,551,615 (2^64 − 1)";
  return null;
}

/** A value the rule takes, for an example ("4,8", "two,any"). */
function exampleValues(row) {
  const choices = choicesOf(row.accepted);
  if (choices) return choices.slice(0, 2).join(",");
  const r = rangeOf(row.accepted);
  return r ? `${r.lo},${r.hi}` : "1,2";
}

/** A sweep's problems: each row's values (two or more, each one the rule takes, none
 *  twice), a rule swept twice, a grid of more than eight variants. */
function sweepProblems(out) {
  const keys = new Set();
  let total = 1;
  const sizes = [];
  for (const s of state.sweeps) {
    const row = state.game.rules.find((r) => r.key === s.key.value);
    if (!row) continue;
    const name = row.key.replaceAll("_", " ");
    if (keys.has(row.key)) out[s.key.id] = `rule to sweep: ${name} is swept already: choose another rule, or remove this one`;
    keys.add(row.key);
    const vals = valuesOf(s);
    const label = `values of ${name}`;
    const choices = choicesOf(row.accepted);
    let msg = null;
    if (vals.length < 2) msg = `${label}: give two or more values, comma-separated, e.g. ${exampleValues(row)}`;
    for (const v of vals) {
      if (msg) break;
      if (choices && !choices.some((c) => same(c, v))) msg = `${label}: '${v}' is not one of ${choices.join(", ")}`;
      const p = !choices && rowProblem(row, v);
      if (p) msg = `${label}: ${p.replace(/^[^:]*: /, "")}`;
    }
    if (!msg) {
      const twice = vals.find((v, i) => vals.findIndex((w) => same(v, w)) !== i);
      if (twice !== undefined) msg = `${label}: ${twice} is given twice: give each value once`;
    }
    if (msg) out[s.values.id] = msg;
    total *= Math.max(1, vals.length);
    sizes.push(Math.max(1, vals.length));
  }
  const last = state.sweeps[state.sweeps.length - 1];
  if (total > MAX && last && !out[last.values.id]) {
    out[last.values.id] = `the grid makes ${sizes.join(" × ")} = ${total} variants; at most ${MAX}: give fewer values`;
  }
  return sizes.length > 1 ? total : null;
}

/** A variant's label: letters, digits or _.+-, at most 40 characters, each its own. */
function labelProblems(out) {
  const seen = new Set();
  for (const v of state.variants) {
    const t = v.labelInput.value.trim();
    let msg = null;
    if (!t) msg = "label: give the variant a label, e.g. B";
    else if (!/^[A-Za-z0-9_.+-]+$/.test(t)) msg = `label: '${t}' may have only letters, digits and _ . + -`;
    else if (t.length > 40) msg = `label: at most 40 characters; this one has ${t.length}`;
    else if (seen.has(t)) msg = `label: another variant is labelled ${t}: give each its own`;
    seen.add(t);
    if (msg) out[v.labelInput.id] = msg;
  }
}

/** Every own field's problem now: {id: sentence}. */
function fieldProblems() {
  const out = {};
  for (const id of ["hands", "games"]) {
    if (id === "hands" && state.game.unit === "game") continue;
    const p = countProblem(id);
    if (p) out[id] = p;
  }
  const s = seedProblem($("seed").value);
  if (s) out.seed = s;
  if ($("adapt").checked) {
    for (const id of ADAPT_SIZES) {
      const p = $(id).value.trim() === "" ? null : countProblem(id);
      if (p) out[id] = p;
    }
  }
  if (sweeping()) sweepProblems(out);
  else labelProblems(out);
  for (const [id, msg] of Object.entries(state.serverErrors)) if (!out[id] && $(id)) out[id] = msg;
  return out;
}

/** The ids of every field that shows its own error. */
function errorFields() {
  return [...Object.keys(FIELDS), ...state.sweeps.flatMap((s) => [s.key.id, s.values.id]),
    ...state.variants.map((v) => v.labelInput.id)];
}

/** Show each field's problem on it (and open its group if it is folded away). */
function showProblems(problems) {
  for (const id of errorFields()) {
    const input = $(id);
    const box = $(`${id}-error`);
    if (!input || !box) continue;
    const msg = problems[id] || "";
    if (box.textContent !== msg) box.textContent = msg;
    input.setAttribute("aria-invalid", msg ? "true" : "false");
    const group = input.closest("details");
    if (msg && group && !group.open && !input.dataset.shown) group.open = true;
    if (msg) input.dataset.shown = "1"; else delete input.dataset.shown;
  }
}

/** The short name of a problem ("hands per variant", "values of moon made"). */
const nameOf = (msg) => msg.split(":")[0];

function changed() {
  if (!state.policies) return;
  $("adapt-sizes").hidden = !$("adapt").checked;
  const problems = fieldProblems();
  showProblems(problems);
  const more = [...(sweeping() ? [] : state.variants.flatMap((v) => v.editor.problems())), ...state.policies.problems()];
  if (state.policies.problems().length) $("policies").closest("details").open = true;
  const valid = !Object.keys(problems).length && !more.length;
  state.valid = valid;
  $("run").dataset.invalid = valid ? "0" : "1";
  $("run").disabled = !valid || !!state.job;
  // in search mode the address holds the search's inputs (search.js)
  if (!$("page-search").checked) replaceUrl(pairs());
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : state.game.default_policy;
  const n = state.variants.length;
  $("add").disabled = n >= MAX;
  $("count").textContent = sweeping() ? "" : `${n} variants (2 to ${MAX}); the first is the base`;
  const grid = state.sweeps.reduce((t, s) => t * Math.max(1, valuesOf(s).length), 1);
  $("grid-count").textContent = state.sweeps.length > 1 ? `${grid} variants in the grid (at most ${MAX})` : "";
  $("add-sweep").disabled = state.sweeps.length >= 3;
  for (const s of state.sweeps) s.remove.hidden = state.sweeps.length < 2;
  state.key = null;
  if (!state.job) {
    const waiting = [...new Set([...Object.values(problems).map(nameOf), ...more.map((p) => p.key.replaceAll("_", " "))])];
    $("estimate").textContent = waiting.length ? `Compare waits for: ${waiting.join(", ")}` : "";
  }
  estimateSoon();
}

/** A field changed by the user: its server refusal goes, the page is checked again. */
function edited(id) {
  delete state.serverErrors[id];
  changed();
}

const estimateSoon = later(async () => {
  if (state.job || !state.valid) return;
  const p = pairs();
  const key = queryOf(p);
  state.key = key;
  $("estimate").textContent = "expected time: estimating…";
  try {
    const e = await api(`/api/estimate?${queryOf([["command", "compare"], ...p])}`);
    if (state.key === key && !state.job) { $("estimate").textContent = `expected time: ${e.text}`; $("alert").textContent = ""; }
  } catch (err) {
    if (state.key !== key || state.job) return;
    $("estimate").textContent = "";
    if (!serverError(err)) $("alert").textContent = plainError(err.message, LABELS);
  }
}, 400);

/** A server's refusal put on the field it names (true), or not placed (false). */
function serverError(err) {
  const m = String(err.message);
  const text = plainError(m, LABELS);
  const variant = m.match(/^bad --variant '([^':]*)/);
  const swept = m.match(/^bad --sweep '([a-z_0-9]+)=/);
  const twice = m.match(/two variants have the label '([^']*)'/);
  const where = optionOfError(m);
  if (variant) {
    const v = state.variants.find((x) => x.labelInput.value.trim() === variant[1]);
    if (!v) return false;
    const said = text.replace(/^bad variant '[^']*'(\.\.\.)?: /, "");
    if (!(where && where.option === "set" && where.key && v.editor.showError(where.key, said))) {
      state.serverErrors[v.labelInput.id] = `variant ${variant[1]}: ${said}`;
    }
  } else if (swept) {
    const s = state.sweeps.find((x) => x.key.value === swept[1]);
    if (!s) return false;
    state.serverErrors[s.values.id] = `values of ${swept[1].replaceAll("_", " ")}: ${text.replace(/^bad sweep '[^']*': /, "")}`;
  } else if (twice) {
    const all = state.variants.filter((x) => x.labelInput.value.trim() === twice[1]);
    if (!all.length) return false;
    state.serverErrors[all[all.length - 1].labelInput.id] = `label: ${text}`;
  } else if (where && where.option === "policy" && where.key && state.policies.showError(where.key, text)) {
    $("policies").closest("details").open = true;
  } else {
    // "bad games 70: the web app takes at most ...", "argument --games: '0': expected ..."
    const bad = m.match(/^bad ([a-z][a-z-]*) [^:]*: (.*)$/s);
    const option = bad ? bad[1] : where && where.option;
    const f = FIELDS[option];
    if (!f || !$(option)) return false;
    const said = (bad ? plainError(bad[2], LABELS) : text.replace(/^[a-z -]+: /, ""))
      .replace(/\s*\(the command line, simkit compare, takes more\)/, "");
    state.serverErrors[option] = `${f.label}: ${said}`;
  }
  changed();
  return true;
}

/** An id for a new variant's inputs: rules-a, rules-b, ... in the order made (stable, so
 *  that an address opens the same inputs). */
function freshId() {
  const used = new Set(state.variants.map((v) => v.id));
  const letter = "abcdefghijklmnop".split("").find((c) => !used.has(`rules-${c}`));
  return `rules-${letter}`;
}

/** One variant's card: its label (with its error under it), rules and (not for the base)
 *  a Remove button. */
function addVariant(g, { label, preset = "seed", sets }, focus = false) {
  const i = state.variants.length;
  const id = freshId();
  const labelId = `${id}-label`;
  const labelInput = el("input", { class: "label-input", id: labelId, type: "text", value: label,
    "aria-label": `label of variant ${i + 1}`, spellcheck: "false", autocomplete: "off",
    "aria-describedby": `${labelId}-error` });
  const host = el("div", {});
  const remove = el("button", { type: "button", class: "small", "aria-label": `remove variant ${label}` }, "Remove");
  const card = el("div", { class: "variant" }, el("h3", {}, "Variant ", labelInput,
    el("span", { class: "base-mark" }, ""), remove),
  el("p", { class: "field-error", id: `${labelId}-error`, "aria-live": "polite" }), host);
  const v = { id, card, labelInput, remove };
  v.editor = new RulesEditor(host, g, { preset, sets, onChange: changed, id });
  labelInput.addEventListener("input", () => edited(labelId));
  // a rule typed in is checked as it is typed (its change event sets it)
  host.addEventListener("input", () => changed());
  remove.addEventListener("click", () => {
    const at = state.variants.indexOf(v);
    state.variants.splice(at, 1);
    delete state.serverErrors[labelId];
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

// --- a sweep: one rule at several values, or a grid of several ------------------------------

/** A sweep row's ids: sweep-key and sweep-values for the first, then -2, -3. */
function sweepIds() {
  const used = new Set(state.sweeps.map((s) => s.k));
  let k = 1;
  while (used.has(k)) k += 1;
  const sfx = k === 1 ? "" : `-${k}`;
  return { k, key: `sweep-key${sfx}`, values: `sweep-values${sfx}`, doc: `sweep-doc${sfx}` };
}

function addSweep(g, chosen = null, values = "", focus = false) {
  const ids = sweepIds();
  const rows = g.rules.filter((r) => r.key !== "players");
  const taken = new Set(state.sweeps.map((s) => s.key.value));
  const key = el("select", { id: ids.key, "aria-describedby": `${ids.key}-error` },
    rows.map((r) => el("option", { value: r.key }, r.key.replaceAll("_", " "))));
  key.value = rows.some((r) => r.key === chosen) ? chosen : (rows.find((r) => !taken.has(r.key)) || rows[0]).key;
  const input = el("input", { id: ids.values, type: "text", spellcheck: "false", autocomplete: "off",
    placeholder: "1,2,3,4", value: values, "aria-describedby": `${ids.doc} ${ids.values}-error` });
  const doc = el("p", { class: "hint", id: ids.doc });
  const remove = el("button", { type: "button", class: "small", "aria-label": `remove the sweep of ${key.value.replaceAll("_", " ")}` }, "Remove");
  const box = el("div", { class: "sweep-row" },
    el("div", { class: "fields two" },
      el("div", { class: "field" }, el("label", { for: ids.key }, state.sweeps.length ? "crossed with the rule" : "rule to sweep"), key,
        el("p", { class: "field-error", id: `${ids.key}-error`, "aria-live": "polite" })),
      el("div", { class: "field" }, el("label", { for: ids.values }, "values, comma-separated (the first is the base)"), input,
        el("p", { class: "field-error", id: `${ids.values}-error`, "aria-live": "polite" }))),
    doc, remove);
  const s = { k: ids.k, box, key, values: input, doc, remove };
  key.addEventListener("change", () => {
    input.value = "";
    delete state.serverErrors[key.id];
    sweepDoc(s);
    edited(input.id);
  });
  input.addEventListener("input", () => edited(input.id));
  remove.addEventListener("click", () => {
    state.sweeps.splice(state.sweeps.indexOf(s), 1);
    delete state.serverErrors[input.id];
    box.remove();
    changed();
    state.sweeps[state.sweeps.length - 1].values.focus();
  });
  state.sweeps.push(s);
  $("sweeps").append(box);
  sweepDoc(s);
  if (focus) key.focus();
  return s;
}

function sweepDoc(s) {
  const row = state.game.rules.find((r) => r.key === s.key.value);
  if (!row) return;
  const choices = choicesOf(row.accepted);
  s.doc.textContent = `${row.doc} (accepted: ${row.accepted}; default ${row.default})`;
  if (!s.values.value.trim() && choices) s.values.value = choices.join(",");
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
  state.serverErrors = {};
  $("game").value = name;
  $("hands").closest(".field").style.display = g.unit === "game" ? "none" : "";
  const P = Number((values.players || [])[0]);
  $("players").replaceChildren(...g.players.map((p) => el("option", { value: p }, `${p} players`)));
  $("players").value = g.players.includes(P) ? P : g.default_players;
  state.variants = [];
  $("variants").replaceChildren();
  const given = (values.variant || ["A:", "B:"]).map((t) => parseVariant(g, t)).slice(0, MAX);
  while (given.length < 2) given.push({ label: given.length ? "B" : "A", sets: [] });
  for (const v of given) addVariant(g, v);
  state.sweeps = [];
  $("sweeps").replaceChildren();
  const sweeps = (values.sweep || []).filter(Boolean);
  for (const text of sweeps.length ? sweeps : [""]) {
    const [key, vals] = text.split(/=(.*)/s);
    addSweep(g, key, vals || "");
  }
  setMode(sweeps.length > 0);
  state.policies = new PolicyEditor($("policies"), g, Number($("players").value), values.policy || [],
    { onChange: changed, id: "pol" });
  $("answer").hidden = true;
  changed();
}

// --- running ------------------------------------------------------------------------------

function run() {
  if (!state.valid || state.job) return null;
  return runJob(state, "compare", pairs(), {
    button: $("run"), cancel: $("cancel"), progress: $("progress"), bar: $("bar"),
    percent: $("percent"), eta: $("eta"), estimate: $("estimate"), alert: $("alert"),
    onError: serverError,
  }, show);
}

// --- the answer ----------------------------------------------------------------------------

const TITLES = { hands: "Hands", bids: "Bids", scores: "Scores", games: "Games", sessions: "Sessions",
  design: "The designer's measures" };

const NS = "http://www.w3.org/2000/svg";
function svg(w, h, cls, label) {
  const s = document.createElementNS(NS, "svg");
  s.setAttribute("viewBox", `0 0 ${w} ${h}`);
  s.setAttribute("class", cls);
  if (label) { s.setAttribute("role", "img"); s.setAttribute("aria-label", label); } else s.setAttribute("aria-hidden", "true");
  return s;
}

const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

const SIG = "#1f7a3f", PLAIN = "#9a927c";
/** The figures' colours: the base green, the other variants gold (as their caption says). */
const BASE = { colour: "#1f7a3f", name: "green" }, OTHER = { colour: "#b8860b", name: "gold" };

/** A finding that tells a difference that matters (the table's bold green, the bar's
 *  green): higher or lower, and not within the measure's margin. */
const matters = (r, prefix = "") => {
  const word = r[`${prefix}finding`];
  return (word === "higher" || word === "lower") && !r[`${prefix}within_margin`];
};

/** A small SVG: the difference and its interval against zero (one line per adaptation),
 *  green when the finding tells a difference that matters. */
function diffBar(r, span) {
  const each = Array.isArray(r.by_adaptation) && r.by_adaptation.length > 1 ? r.by_adaptation
    : [{ diff: r.diff ?? 0, ci_low: r.ci_low, ci_high: r.ci_high }];
  const W = 150, H = Math.max(18, 8 * each.length + 4), mid = W / 2;
  const x = (v) => mid + (v / span) * (W / 2 - 4);
  const s = svg(W, H, "diffbar");
  s.setAttribute("width", W);
  s.setAttribute("height", H);
  const colour = matters(r) ? SIG : PLAIN;
  let inner = `<line x1="${mid}" x2="${mid}" y1="1" y2="${H - 1}" stroke="#8a826c" stroke-dasharray="3 2"/>`;
  each.forEach((e, i) => {
    const y = each.length === 1 ? H / 2 : 4 + i * ((H - 8) / (each.length - 1));
    if (finite(e.ci_low) && finite(e.ci_high)) inner += `<line x1="${x(e.ci_low)}" x2="${x(e.ci_high)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="3" stroke-linecap="round"/>`;
    inner += `<circle cx="${x(e.diff ?? 0)}" cy="${y}" r="${each.length === 1 ? 4.5 : 3.5}" fill="${colour}" stroke="#fff" stroke-width="1.5"/>`;
  });
  s.innerHTML = inner;
  return s;
}

/** The half-width a row's bar shows: its own interval's reach (measures differ in units). */
function spanOf(r) {
  return Math.max(1e-12, Math.abs(r.ci_low ?? 0), Math.abs(r.ci_high ?? 0), Math.abs(r.diff ?? 0)) * 1.1;
}

/** What a table's rows count ("hands", "games"), for "about N ... would tell". */
function unitOf(table, r) {
  const hands = ["hands", "bids", "scores"].includes(table) || /^position: /.test(r.metric || "");
  if (hands && state.answerGame.unit !== "game") return "hands";
  return state.answerGame.name === "pitch" ? "sessions" : "games";
}

/** A row's finding in words: "(within its margin)" where the difference is too small to
 *  matter, what would tell where nothing was shown either way, and for the balance's
 *  G-test each variant's own p-value of equal shares. */
function findingCell(r, prefix = "", { table = "", labels = [] } = {}) {
  const word = r[`${prefix}finding`];
  if (!word) return el("td", {}, "–");
  const t = termOf(word);
  const text = t ? term(t.key, null, word) : word;
  const td = el("td", { class: "finding" }, el("span", { class: matters(r, prefix) ? "sig" : "" }, text));
  if (r[`${prefix}within_margin`]) {
    td.append(el("span", { class: "ci margin-note" }, "(within its margin)"));
    td.dataset.withinMargin = "true";
  }
  const n = r[`${prefix}needed`];
  if (word === "not shown either way" && finite(n) && n > 0) {
    td.append(el("span", { class: "ci needed" }, `about ${Math.round(n).toLocaleString("en")} ${unitOf(table, r)} would tell`));
    td.dataset.needed = JSON.stringify(n);
  }
  if (!prefix && (finite(r.p_a) || finite(r.p_b))) {
    td.append(el("span", { class: "ci gtest" }, `equal shares: ${labels[0]} p = ${pText(r.p_a)}, ${labels[1]} p = ${pText(r.p_b)}`));
    td.dataset.gtest = JSON.stringify([r.p_a ?? null, r.p_b ?? null]);
  }
  td.dataset.finding = JSON.stringify(word);
  return td;
}

/** The difference cell: the difference and its interval, or with several adaptations each
 *  adaptation's difference and the span of their intervals (``_each``). */
function diffCell(r, rate, prefix = "") {
  const each = r[`${prefix}by_adaptation`];
  const d = r[`${prefix}diff`], lo = r[`${prefix}ci_low`], hi = r[`${prefix}ci_high`];
  const td = el("td", {});
  const cls = matters(r, prefix) ? "sig" : "";
  const f = diffParts(d, lo, hi, rate);
  if (Array.isArray(each) && each.length > 1) {
    const scale = rate ? 100 : 1, unit = rate ? " pp" : "";
    const k = decimals(finite(lo) && finite(hi) ? ((hi - lo) / 2) * scale : NaN, rate ? 1 : 0);
    const parts = each.map((e) => (finite(e.diff) ? signedText(scale * e.diff, k) : "–"));
    td.append(el("span", { class: cls }, parts.join(" · ") + unit), el("span", { class: "ci" }, "each adaptation;"),
      el("span", { class: "ci" }, `span ${finite(lo) && finite(hi) ? `[${signedText(scale * lo, k)}, ${signedText(scale * hi, k)}]` : "–"}`));
    td.dataset.adaptations = JSON.stringify(each);
  } else {
    td.append(el("span", { class: cls }, f.d), f.ci ? el("span", { class: "ci" }, f.ci) : null);
  }
  td.dataset.diff = JSON.stringify(d ?? null);
  return td;
}

/** A table cell whose data attributes hold the exact numbers (for scripts and tests). */
function cell(text, data = {}) {
  const td = el("td", {}, text);
  for (const [k, v] of Object.entries(data)) td.dataset[k] = JSON.stringify(v ?? null);
  return td;
}

/** A variant as a table's heading names it: a grid's point by its values alone ("4, two",
 *  its full label in its title), else its label. */
function shown(l) {
  const v = state.gridValues && state.gridValues[l];
  return v ? v.join(", ") : String(l);
}
function headLabel(l) {
  const v = state.gridValues && state.gridValues[l];
  return v ? [el("span", { class: "grid-label", title: l }, v.join(", "))] : labelText(l);
}

/** The class of a heading holding ``labels``: one that may wrap when a label is long. */
const wrapOf = (...labels) => (labels.some((l) => shown(l).length > 10) ? "wrap" : null);

/** A label that may break after its commas and equals signs (a grid's labels are long). */
function labelText(l) {
  const out = [];
  String(l).split(/(?<=[,=])/).forEach((p, i) => { if (i) out.push(el("wbr")); out.push(p); });
  return out;
}

function metricTable(rows, labels, table) {
  const head = el("tr", {}, el("th", { class: "left" }, "measure"), el("th", { class: wrapOf(labels[0]) }, ...headLabel(labels[0])),
    el("th", { class: wrapOf(labels[1]) }, ...headLabel(labels[1])),
    el("th", { class: wrapOf(...labels) }, ...headLabel(labels[1]), " − ", ...headLabel(labels[0]), " ", ciHead()), th("p", "p-value"),
    th("Holm's p", "Holm's p"), th("finding", "finding"), el("th", {}, el("span", { class: "sr-only" }, "difference as a bar")));
  const seen = new Set();
  const body = rows.map((r) => {
    const rate = r.kind === "rate";
    const never = Array.isArray(r.never) ? r.never : [false, false];
    return el("tr", { "data-metric": r.metric }, explain(el("td", { class: "left" }, r.metric), state.answerGame.name, WORDS, seen),
      cell(val(r.a, rate, never[0]), { a: r.a }), cell(val(r.b, rate, never[1]), { b: r.b }), diffCell(r, rate),
      cell(pText(r.p_value), { p: r.p_value }), cell(pText(r.p_holm), { holm: r.p_holm }),
      findingCell(r, "", { table, labels }), el("td", {}, diffBar(r, spanOf(r))));
  });
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

/** "[95% CI]", the interval explained. */
function ciHead() {
  const t = termOf("interval");
  return el("span", { class: "ci-head" }, "[", t ? term(t.key, null, "95% CI") : "95% CI", "]");
}

function bidTable(rows, labels) {
  const [A, B] = labels;
  const head = el("tr", {}, el("th", { class: "left" }, "bid"), el("th", { class: wrapOf(A) }, "share ", ...headLabel(A)),
    el("th", { class: wrapOf(B) }, "share ", ...headLabel(B)), el("th", {}, "difference ", ciHead()), th("Holm's p", "Holm's p"),
    th("finding", "finding"), el("th", { class: wrapOf(A) }, termOf("made") ? term(termOf("made").key, null, "made") : "made", " ", ...headLabel(A)),
    el("th", { class: wrapOf(B) }, "made ", ...headLabel(B)), el("th", {}, "difference ", el("span", { class: "ci-head" }, "[95% CI]")), el("th", { class: "nowrap" }, "Holm's p"), el("th", { class: "nowrap" }, "finding"));
  const seen = new Set();
  const made = (r) => (r.level ? [diffCell(r, true, "made_"), el("td", {}, pText(r.made_p_holm)),
    findingCell(r, "made_", { table: "bids", labels })]
    : [el("td", {}, "–"), el("td", {}, "–"), el("td", {}, "–")]);
  const body = rows.map((r) => el("tr", { "data-metric": r.bid }, explain(el("td", { class: "left" }, r.bid), state.answerGame.name, WORDS, seen),
    cell(val(r.rate_a, true), { a: r.rate_a }), cell(val(r.rate_b, true), { b: r.rate_b }), diffCell(r, true),
    el("td", {}, pText(r.p_holm)), findingCell(r, "", { table: "bids", labels }), el("td", {}, val(r.made_a, true)),
    el("td", {}, val(r.made_b, true)), ...made(r)));
  return el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body));
}

/** The variants' labels as the figures' ticks: a sweep's values alone (one line per swept
 *  rule), its rules named once in ``keys``; other labels as they are. */
function ticks(labels) {
  const parsed = labels.map((l) => String(l).split(",").map((kv) => kv.split("=")));
  const keys = parsed[0].map((p) => p[0]);
  const grid = parsed.every((p) => p.length === keys.length && p.every((kv, i) => kv.length === 2 && kv[0] === keys[i]));
  return grid ? { keys, lines: parsed.map((p) => p.map((kv) => kv[1])) } : { keys: [], lines: labels.map((l) => [l]) };
}

/** The values a measure can take: a share between 0 and 1 (a share minus a fair share
 *  between −1 and 1), a count (games to be ahead, lengths, lead changes) from 0 up. */
function boundsOf(metric, rate) {
  if (rate) return /minus/.test(metric) ? [-1, 1] : [0, 1];
  const count = /games for the stronger|lead changes|hands per|turns per|rounds per|per game|per session|length|percentile|median/.test(metric)
    && !/\$|money|points/.test(metric);
  return count ? [0, Infinity] : [-Infinity, Infinity];
}

/** An axis end as people read it: the decimals the axis's span asks for, no trailing zeros,
 *  never a negative zero. */
function axisText(v, rate, k) {
  const scale = rate ? 100 : 1;
  const x = Number((v * scale).toFixed(k));
  const t = Math.abs(x).toLocaleString("en", { maximumFractionDigits: k });
  return `${x < 0 ? MINUS : ""}${t}${rate ? "%" : ""}`;
}

/** One measure across the variants: each variant's value with its 95% interval, the base's
 *  green and the others' gold; the axis within the values the measure can take. */
export function acrossChart(metric, points, rate, nKeys = 1) {
  const present = points.filter((p) => finite(p.v));
  const lines = Math.max(1, nKeys);
  const W = 300, L = 58, R = 8, T = 8, B = 20 + 14 * lines, H = 116 + B;
  const [floor, ceiling] = boundsOf(metric, rate);
  const ends = present.flatMap((p) => [p.v, p.lo, p.hi]).filter(finite);
  const lo = Math.min(...ends), hi = Math.max(...ends);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.05 || (rate ? 0.01 : 0.5);
  // the ends rounded outwards to the digits their labels show, then kept within the
  // values the measure can take
  const scale = rate ? 100 : 1;
  const k = decimals(((hi - lo + 2 * pad) * scale) / 2, 0);
  const step = 10 ** -k / scale;
  const y0 = Math.max(floor, Math.floor((lo - pad) / step) * step);
  const y1 = Math.min(ceiling, Math.ceil((hi + pad) / step) * step);
  const x = (i) => L + (points.length === 1 ? 0.5 : i / (points.length - 1)) * (W - L - R - 10) + 5;
  const y = (v) => T + (1 - (Math.min(y1, Math.max(y0, v)) - y0) / (y1 - y0)) * (H - T - B);
  const f = (v) => val(v, rate);
  const said = points.map((p) => `${p.label} ${p.never ? "never" : finite(p.v) ? f(p.v) : "–"}`);
  const s = svg(W, H, "across", `${metric}: ${said.join(", ")}`);
  s.dataset.low = JSON.stringify(y0);
  s.dataset.high = JSON.stringify(y1);
  let inner = `<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#c9c1a8"/>`
    + `<text x="${L - 4}" y="${y(y1) + 10}" text-anchor="end" class="tick axis">${esc(axisText(y1, rate, k))}</text>`
    + `<text x="${L - 4}" y="${y(y0)}" text-anchor="end" class="tick axis">${esc(axisText(y0, rate, k))}</text>`;
  // the words under (and "never" over) the first and the last point kept inside the figure
  const anchor = (i) => (points.length < 2 ? "middle" : i === 0 ? "start" : i === points.length - 1 ? "end" : "middle");
  const ax = (i) => x(i) + (anchor(i) === "start" ? -5 : anchor(i) === "end" ? 5 : 0);
  points.forEach((p, i) => {
    const c = i === 0 ? BASE.colour : OTHER.colour;
    if (p.never) inner += `<text x="${ax(i)}" y="${T + 10}" text-anchor="${anchor(i)}" class="never">never</text>`;
    else if (finite(p.v)) {
      if (finite(p.lo) && finite(p.hi)) inner += `<line class="${i === 0 ? "base" : "other"}" x1="${x(i)}" x2="${x(i)}" y1="${y(p.lo)}" y2="${y(p.hi)}" stroke="${c}" stroke-width="2.5" stroke-linecap="round"/>`;
      inner += `<circle class="${i === 0 ? "base" : "other"}" cx="${x(i)}" cy="${y(p.v)}" r="4.5" fill="${c}" stroke="#fff" stroke-width="1.5"/>`;
    }
  });
  // the variants' names last (a grid's values one line per rule)
  points.forEach((p, i) => {
    const cut = (t) => (t.length > 12 ? t.slice(0, 11) + "…" : t);
    const spans = p.tick.length === 1 ? esc(cut(p.tick[0]))
      : p.tick.map((t, j) => `<tspan x="${ax(i)}" dy="${j ? 14 : 0}">${esc(cut(t))}</tspan>`).join("");
    inner += `<text x="${ax(i)}" y="${H - B + 16}" text-anchor="${anchor(i)}" class="tick">${spans}</text>`;
  });
  s.innerHTML = inner;
  return el("figure", { class: "across", "data-metric": metric }, el("figcaption", {}, metric), s);
}

/** Per design measure: its value under each variant, the base first; a measure whose values
 *  are all missing or "never" gets no figure. */
function acrossFigures(rows, labels) {
  const out = [];
  const { keys, lines } = ticks(labels);
  const metrics = [...new Set(rows.map((r) => r.metric))];
  for (const m of metrics) {
    const mine = rows.filter((r) => r.metric === m);
    const first = mine[0];
    if (!first || !("a" in first)) continue;
    const never = (r, i) => Array.isArray(r.never) && r.never[i] === true;
    const points = [{ label: labels[0], tick: lines[0], v: first.a, lo: first.a_low, hi: first.a_high, never: never(first, 0) }];
    labels.slice(1).forEach((later, j) => {
      const r = mine.find((x) => (x.vs ?? labels[1]) === later);
      if (r) points.push({ label: later, tick: lines[j + 1], v: r.b, lo: r.b_low, hi: r.b_high, never: never(r, 1) });
    });
    if (!points.some((p) => finite(p.v) && !p.never)) continue;
    out.push(acrossChart(m, points, first.kind === "rate", keys.length));
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
      const [k, val2] = kv.split("=");
      return kv && String(defaults[k]).toLowerCase() !== String(val2).toLowerCase();
    });
    return diff.length ? `${name}:${diff.join(",")}` : name;
  };
  const all = [...new Set(texts)];
  return all.length === 1 ? `${short(all[0])} at every seat` : texts.map(short).join(" | ");
}

/** A difference against the field or between settings, with its interval. */
function againstText(d, lo, hi) {
  const f = diffParts(d, lo, hi, false);
  return f.ci ? `${f.d} ${f.ci}` : f.d;
}

/** How one adaptation of a variant went: its setting, and each round. */
function adaptationItem(one, k, n, objective, g) {
  const label = n > 1 ? `adaptation ${k + 1}: ` : "";
  const how = one.reused ? "kept from an earlier run" : `${one.rounds} round${one.rounds === 1 ? "" : "s"}`;
  const said = one.continued_from
    ? `took ${one.continued_from}'s setting, which beat its own under these rules, and went on from it (${how})`
    : one.changed ? `adapted to these rules (${how}; objective: ${objective})`
      : `the players needed no change under this rule (${how})`;
  const rounds = (one.trace || []).map((t) => (t.diff === null
    ? el("li", {}, `round ${t.round}: no setting beat the field on the search's deals: kept`)
    : el("li", {}, `round ${t.round}: best `, el("code", {}, played({ policies: [t.best] }, g)),
      `, against the field ${againstText(t.diff, t.ci_low, t.ci_high)} on ${t.games.toLocaleString("en")} fresh games: `
      + `${t.adopted ? "adopted" : "the field kept"}`)));
  return el("li", {}, label, el("code", {}, played({ policies: [one.setting] }, g)), `: ${said}`,
    one.capped ? el("span", { class: "warn" }, " — stopped at the cap of rounds while still improving") : null,
    rounds.length ? el("details", { class: "params" }, el("summary", {}, "its rounds"), el("ul", {}, rounds)) : null);
}

function headPanel(c) {
  const g = state.games[c.game];
  const variants = c.tables.variants || [];
  const adapted = variants.some((v) => v.adapted);
  const k = adapted ? variants[0].adapted.seeds : 1;
  const warnings = (c.warnings || []).map((w) => el("p", { class: "callout warn", role: "note" }, `Warning: ${w}.`));
  return el("section", { class: "panel", "data-part": "head" }, el("h2", {}, `${g.title}: `, ...c.labels.flatMap((l, i) => [i ? ", " : "", ...labelText(l)])),
    el("p", { class: "hint" }, [`${c.players} players`, c.hands ? `${c.hands.toLocaleString("en")} hands` : null,
      c.games ? `${c.games.toLocaleString("en")} games` : null, `seed ${c.seed}`].filter(Boolean).join(", ")
      + " per variant. Differences are later − base on the same deals; ",
      el("span", { class: "sig" }, "bold green"), " (and a green bar): ",
      ...explained("a finding of higher or lower (Holm's p below 5%) by more than the measure's margin; "
        + "one within its margin is marked so, and not highlighted.", null, ["Holm's p", "margin"]),
      adapted && k > 1 ? ` The players were adapted ${k} times, each time independently; the comparison was played once per adaptation on the same deals, and a finding holds only where every adaptation agrees.` : ""),
    ...warnings);
}

/** The variants and the policies that played them (each adaptation's, with adapted players). */
function playedPanel(c) {
  const g = state.games[c.game];
  const variants = c.tables.variants || [];
  const items = variants.map((v, i) => {
    const a = v.adapted;
    const each = a ? a.by_adaptation : [];
    const line = a ? el("ul", { class: "adaptations" }, each.map((one, k) => adaptationItem(one, k, each.length, a.objective, g)))
      : el("div", { class: "hint" }, "played by ", el("code", {}, played(v, g)), ", not adapted");
    return el("li", { "data-variant": v.label }, el("b", {}, ...labelText(v.label), i === 0 ? " (base)" : ""), " ",
      v.changes === v.label ? null : el("code", {}, v.changes), line);
  });
  return el("section", { class: "panel", "data-part": "played" },
    el("h3", {}, "The variants and the policies that played them"), el("ul", { class: "policies played" }, items));
}

/** A sweep's grid first: one row per variant, its swept rules' values, and per headline
 *  measure its value, interval and finding against the base. */
function sweepPanel(c) {
  const rows = c.tables.sweep || [];
  if (!rows.length) return null;
  const names = Object.keys(rows[0]).filter((k) => k.endsWith(" finding")).map((k) => k.slice(0, -" finding".length));
  const keys = Object.keys(rows[0]).filter((k) => k !== "variant" && !names.some((n) => k === n || k.startsWith(`${n} `)));
  const rate = (n) => !/length|lead changes|points/.test(n);
  const seen = new Set();
  const head = el("tr", {}, ...keys.map((k, i) => el("th", { class: i ? "wrap" : "left" }, k.replaceAll("_", " "))),
    ...names.map((n) => explain(el("th", { class: "wrap" }, n), c.game, WORDS, seen)));
  const body = rows.map((r, i) => el("tr", { "data-variant": r.variant },
    ...keys.map((k, j) => el("td", { class: j ? "" : "left" }, String(r[k] ?? "–"), i === 0 && j === 0 ? el("span", { class: "ci" }, "the base") : null)),
    ...names.map((n) => {
      const v = r[n], lo = r[`${n} low`], hi = r[`${n} high`], word = r[`${n} finding`];
      const td = el("td", { class: "grid-cell" }, el("span", { class: word === "higher" || word === "lower" ? "sig" : "" }, val(v, rate(n))));
      if (finite(lo) && finite(hi)) td.append(el("span", { class: "ci" }, `[${val(lo, rate(n))}, ${val(hi, rate(n))}]`));
      if (word && word !== "base") {
        const t = termOf(word);
        td.append(el("span", { class: "ci word" }, t ? term(t.key, null, word) : word));
      }
      td.dataset.value = JSON.stringify(v ?? null);
      td.dataset.finding = JSON.stringify(word ?? null);
      td.dataset.measure = n;
      return td;
    })));
  return el("section", { class: "panel", "data-table": "sweep" },
    el("h2", {}, keys.length > 1 ? `The grid: ${keys.map((k) => k.replaceAll("_", " ")).join(" × ")}`
      : `The sweep: ${keys.map((k) => k.replaceAll("_", " ")).join("")}`),
    el("p", { class: "hint" }, "One row per variant, the first the base: each headline measure's value with its 95% interval and, "
      + "under it, its finding against the base. The details of each variant against the base follow."),
    el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "the grid, one row per variant" },
      el("table", { class: "data sweep-grid" }, el("thead", {}, head), el("tbody", {}, body))));
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
      ...labels.map((l) => el("th", { class: wrapOf(l) }, "against ", ...headLabel(l), "'s setting")));
    const body = labels.map((own) => el("tr", { "data-rules": own }, el("td", { class: "left" }, ...labelText(own)),
      ...labels.map((other) => {
        if (own === other) return el("td", {}, "–");
        const cells = mine.filter((r) => r.rules === own && r.setting_of === other);
        const td = el("td", {});
        for (const r of cells) {
          const note = r.flagged ? (r.continued ? "loses: went on from that setting" : "loses") : r.after ? "after going on" : "";
          if (r.same) { td.append(el("span", {}, "the same setting")); continue; }
          const f = diffParts(r.diff, r.ci_low, r.ci_high, false);
          td.append(el("span", { class: r.flagged ? "warn" : "" }, f.d),
            el("span", { class: "ci" }, `${f.ci}${note ? ` ${note}` : ""}`));
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

/** The win rates of a table when they add up to less than 100% (per variant): a game
 *  nobody finished counts for no side (a shared win is split among the tied sides, so
 *  they never add up to more); else null. */
function sumNote(name, rows, labels) {
  const wins = rows.filter((r) => r.kind === "rate" && /^(balance: )?win rate,|\bwin rate$/.test(r.metric));
  if (wins.length < 2) return null;
  const totals = ["a", "b"].map((k) => (wins.some((r) => !finite(r[k])) ? null
    : wins.reduce((sum, r) => sum + r[k], 0)));
  const off = totals.filter((t) => t !== null && t < 1 - 0.0005);
  if (!off.length) return null;
  const each = totals.map((t, i) => `${labels[i]} ${t === null ? "–" : val(t, true)}`).join(", ");
  return el("p", { class: "callout sum-note", "data-sum": JSON.stringify(totals) },
    `The win rates add up to ${each}: less than 100% because a game nobody finished counts for no side `
    + "(a shared win is split evenly among the sides that tie).");
}

function show(c) {
  const answer = $("answer");
  answer.hidden = false;
  state.answerGame = state.games[c.game] || state.game;
  const grid = ticks(c.labels);
  state.gridValues = grid.keys.length > 1 ? Object.fromEntries(c.labels.map((l, i) => [l, grid.lines[i]])) : null;
  const parts = [headPanel(c), sweepPanel(c), playedPanel(c), bestResponse(c)].filter(Boolean);
  const labels = c.labels;
  const several = labels.length > 2;
  const variants = c.tables.variants || [];
  for (const later of labels.slice(1)) {
    const pair = [labels[0], later];
    const v = variants.find((x) => x.label === later) || {};
    const shares = Object.entries(v).filter(([k]) => k.startsWith("differing_"))
      .map(([k, x]) => `${val(x, true)} of the ${k.slice(10)}`);
    const block = [el("h2", {}, ...labelText(later), " against ", ...labelText(labels[0])),
      el("p", {}, `Deals whose records differ from the base's: ${shares.join(", ")}.`)];
    if (state.gridValues) {
      block.push(el("p", { class: "hint" }, `In the tables below a variant is named by its values of ${grid.keys.join(" and ")}: `
        + `“${shown(later)}” for ${later}, “${shown(labels[0])}” for the base (${labels[0]}).`));
    }
    if (c.identical && c.identical[later]) block.push(el("p", { class: "callout", role: "note" }, c.identical[later]));
    parts.push(el("section", { class: "panel", "data-later": later }, block));
    for (const [name, rows] of Object.entries(c.tables)) {
      if (["variants", "best_response", "sweep"].includes(name)) continue;
      const mine = several ? rows.filter((r) => r.vs === later) : rows;
      if (!mine.length) continue;
      const table = name === "bids" ? bidTable(mine, pair) : metricTable(mine, pair, name);
      const title = `${TITLES[name] || name}: ${later} against ${labels[0]}`;
      parts.push(el("section", { class: "panel", "data-table": name, "data-later": later },
        el("h3", {}, `${TITLES[name] || name}: `, ...labelText(later), " against ", ...labelText(labels[0])),
        // the table scrolls in its own box on a phone, from the keyboard too
        el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": title }, table),
        sumNote(name, mine, pair)));
    }
  }
  const design = c.tables.design || [];
  const figures = acrossFigures(design, labels);
  if (figures.length) {
    const { keys } = ticks(labels);
    const by = keys.length === 1 ? `, by ${keys[0]}` : keys.length > 1
      ? `; each point is labelled with its values of ${keys.join(" (top line), ")} (${keys.length === 2 ? "bottom" : "next"} line${keys.length > 2 ? "s" : ""})` : "";
    parts.push(el("section", { class: "panel", "data-figures": "design" },
      el("h2", {}, "The designer's measures across the variants"),
      el("p", { class: "hint" }, `Each variant's value with its 95% interval: the base (${labels[0]}) in ${BASE.name}, `
        + `the other variants in ${OTHER.name}${by}. The axes stay within the values each measure can take.`),
      el("div", { class: "figures" }, figures)));
  }
  answer.replaceChildren(...parts);
}

// --- start -----------------------------------------------------------------------------------

async function start() {
  chrome("/compare");
  let lim;
  [state.games, , lim] = await Promise.all([gameTable(), loadTerms(),
    api("/api/limits").catch(() => null)]);
  state.limits = (lim && lim.compare) || {};
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
  for (const id of ["hands", "games", "seed", ...ADAPT_SIZES]) $(id).addEventListener("input", () => edited(id));
  $("policies").addEventListener("input", () => changed());
  for (const id of ["adapt", "skill"]) $(id).addEventListener("change", changed);
  for (const id of ["mode-variants", "mode-sweep"]) $(id).addEventListener("change", () => { setMode(sweeping()); changed(); });
  $("add").addEventListener("click", () => {
    const used = new Set(state.variants.map((v) => v.labelInput.value.trim()));
    const label = "ABCDEFGH".split("").find((l) => !used.has(l)) || `V${state.variants.length + 1}`;
    addVariant(state.game, { label, sets: [] }, true);
    changed();
  });
  $("add-sweep").addEventListener("click", () => { addSweep(state.game, null, "", true); changed(); });
  $("run").addEventListener("click", run);
  $("page-compare").addEventListener("change", changed);
  $("cancel").addEventListener("click", () => state.job && state.job.cancel());
}

start().catch((e) => { $("alert").textContent = plainError(e.message, LABELS); });
