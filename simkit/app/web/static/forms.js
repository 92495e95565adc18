// The inputs every page shares: a game's rules (preset and settings) and its
// policies (one for every seat or one per seat, each with its parameters), read
// from /api/games and written back as the CLI's options (preset, set, policy).

import { el, gamesInfo } from "./common.js";

/** The games by name, from /api/games. */
export async function gameTable() {
  const info = await gamesInfo();
  return Object.fromEntries(info.games.map((g) => [g.name, g]));
}

/** What a rule or parameter row accepts, read from its text: choices, or null (free text). */
export function choicesOf(accepted) {
  const a = String(accepted || "");
  if (/^true or false$/i.test(a)) return ["true", "false"];
  const m = a.match(/^one of (.+)$/i);
  return m ? m[1].split(/,\s*/) : null;
}

/** Two values the same for the rules ("True" and "true", "4.0" and "4"). */
export function same(a, b) {
  const x = String(a).trim().toLowerCase();
  const y = String(b).trim().toLowerCase();
  if (x === y) return true;
  return x !== "" && y !== "" && !Number.isNaN(Number(x)) && Number(x) === Number(y);
}

/** What a free-text row accepts, read from its text ("an integer from 1 to 10000", "a
 *  number from -6.0 to 6.0", "exactly 4"): ``{integer, lo, hi}``, or null (anything). */
export function rangeOf(accepted) {
  const a = String(accepted || "");
  let m = a.match(/^an? (integer|number) from (-?[0-9.]+) to (-?[0-9.]+)$/i);
  if (m) return { integer: m[1] === "integer", lo: Number(m[2]), hi: Number(m[3]) };
  m = a.match(/^exactly (-?[0-9.]+)$/i);
  return m ? { integer: true, lo: Number(m[1]), hi: Number(m[1]) } : null;
}

/** A row's value checked against what it accepts: an error sentence naming the field, or null. */
export function rowProblem(row, value) {
  const r = rangeOf(row.accepted);
  if (!r) return null;
  const name = row.key.replaceAll("_", " ");
  const t = String(value).trim();
  const n = Number(t);
  const what = r.lo === r.hi ? `${r.lo}` : `${r.integer ? "a whole number" : "a number"} from ${r.lo} to ${r.hi}`;
  if (t === "" || Number.isNaN(n) || !/^[+-]?[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?$/i.test(t)) {
    return `${name}: '${t}' is not a number; write ${what}`;
  }
  if (r.integer && !Number.isInteger(n)) return `${name}: ${t} is not a whole number; write ${what}`;
  if (n < r.lo || n > r.hi) return `${name}: ${t} is out of range; write ${what}`;
  return null;
}

let fieldNumber = 0;

/** A field's explanation, shown while the field has the focus and on a tap of its "?"
 *  button (not on a mouse hover alone, so phones and keyboards see it too): the "?" button
 *  and the explanation element, already wired (``aria-expanded``, ``aria-controls``). */
export function fieldHelp(name, text, id = `help-${++fieldNumber}`) {
  // hidden by its own attribute, not by a page's style sheet: every page that shows a
  // field (advisor, compare, hand viewer) gets the same behaviour
  const doc = el("p", { class: "field-doc", id: `${id}-doc`, hidden: true }, text);
  const button = el("button", { type: "button", class: "help", "aria-expanded": "false", "aria-controls": doc.id },
    el("span", { "aria-hidden": "true" }, "?"), el("span", { class: "sr-only" }, `about ${name}`));
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    doc.classList.toggle("open", open);
    doc.hidden = !open;
  });
  return { button, doc };
}

/** Show ``help``'s explanation while the focus is inside ``field`` (and while its "?"
 *  keeps it open). */
export function showWhileFocused(field, help) {
  field.addEventListener("focusin", () => { help.doc.hidden = false; });
  field.addEventListener("focusout", (e) => {
    if (field.contains(e.relatedTarget)) return;
    if (help.button.getAttribute("aria-expanded") !== "true") help.doc.hidden = true;
  });
}

/** One input for a rule or parameter row, with its key, what it accepts and its meaning
 *  (shown under it while it has the focus, or after a tap of its "?"), and its error
 *  (shown on the field, cleared as soon as the value is right). */
function rowInput(row, value, base, onChange, id) {
  const choices = choicesOf(row.accepted);
  let input;
  if (choices) {
    input = el("select", { id, name: row.key }, choices.map((c) => el("option", { value: c }, c)));
    input.value = choices.find((c) => same(c, value)) ?? choices.find((c) => same(c, base)) ?? choices[0];
  } else {
    input = el("input", { id, name: row.key, type: "text", value: String(value), spellcheck: "false", autocomplete: "off" });
  }
  const name = row.key.replaceAll("_", " ");
  const help = fieldHelp(name, `${row.doc || name} (${row.accepted})`, id);
  const error = el("p", { class: "field-error", id: `${id}-error`, "aria-live": "polite" });
  input.setAttribute("aria-describedby", `${help.doc.id} ${error.id}`);
  // a list shows its choices itself; free text says what it accepts
  const wrap = el("div", { class: "field", "data-key": row.key },
    el("div", { class: "field-head" }, el("label", { for: id }, name), help.button), input,
    choices ? null : el("span", { class: "rule-doc" }, row.accepted.replace(/^an? (integer|number) /, "")),
    help.doc, error);
  showWhileFocused(wrap, help);
  const it = { wrap, input, row, base, error, problem: null };
  const check = () => {
    it.problem = choices ? null : rowProblem(row, input.value);
    it.error.textContent = it.problem || "";
    input.setAttribute("aria-invalid", it.problem ? "true" : "false");
  };
  const mark = () => { wrap.classList.toggle("changed", !same(input.value, base)); check(); };
  input.addEventListener("input", mark);
  input.addEventListener("change", () => { mark(); onChange(); });
  mark();
  return it;
}

/** Show a server's error on the input of the row it names (``key``), among ``inputs``
 *  (rowInput's); true if one was found. It clears as soon as the value changes. */
function showOn(inputs, key, message) {
  const it = (inputs || []).find((x) => x.row.key === key);
  if (!it) return false;
  it.error.textContent = message;
  it.input.setAttribute("aria-invalid", "true");
  it.problem = message;
  return true;
}

/** "KEY=VALUE" texts as a map. */
function assignments(list) {
  const out = {};
  for (const text of list) {
    const i = text.indexOf("=");
    if (i > 0) out[text.slice(0, i).trim()] = text.slice(i + 1).trim();
  }
  return out;
}

/** The rules of one game: a preset and the settings that differ from it. */
export class RulesEditor {
  constructor(host, game, { preset = "seed", sets = [], onChange = () => {}, id = "rules" } = {}) {
    Object.assign(this, { host, game, onChange, id });
    this.preset = game.presets[preset] ? preset : "seed";
    this.sets = assignments(sets);
    this.unknownPreset = game.presets[preset] ? null : preset;
    this.render();
  }

  baseOf(row) {
    const p = this.game.presets[this.preset] || {};
    return row.key in p ? String(p[row.key]) : row.default;
  }

  render() {
    this.host.replaceChildren();
    const presetId = `${this.id}-preset`;
    const select = el("select", { id: presetId, name: "preset" },
      Object.entries(this.game.presets).map(([name, values]) => el("option", { value: name },
        name === "seed" ? "seed (the rule book)" : name)));
    select.value = this.preset;
    select.addEventListener("change", () => {
      this.preset = select.value;
      this.sets = {};
      this.render();
      this.onChange();
    });
    const what = Object.entries(this.game.presets[this.preset] || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    this.host.append(el("div", { class: "field" }, el("label", { for: presetId }, "preset"), select,
      el("span", { class: "rule-doc" }, what || "the seed documents' rules")));
    const grid = el("div", { class: "fields" });
    this.inputs = this.game.rules.filter((r) => r.key !== "players").map((row) => {
      const base = this.baseOf(row);
      const it = rowInput(row, this.sets[row.key] ?? base, base, () => this.changed(), `${this.id}-${row.key}`);
      grid.append(it.wrap);
      return it;
    });
    this.host.append(el("h3", {}, "settings"), grid);
  }

  changed() {
    this.sets = Object.fromEntries(this.inputs.filter((it) => !same(it.input.value, it.base))
      .map((it) => [it.row.key, it.input.value.trim()]));
    this.onChange();
  }

  /** How many settings differ from the preset. */
  count() { return Object.keys(this.sets).length; }

  /** The settings whose value is not one the rule accepts: ``[{key, message, input}]``. */
  problems() {
    return this.inputs.filter((it) => it.problem).map((it) => ({ key: it.row.key, message: it.problem, input: it.input }));
  }

  /** Show ``message`` on the setting ``key`` (a server's refusal naming it); true if shown. */
  showError(key, message) { return showOn(this.inputs, key, message); }

  /** The CLI's options: preset (unless seed) and a set per changed setting. */
  pairs() {
    const out = [];
    if (this.preset !== "seed") out.push(["preset", this.preset]);
    for (const [k, v] of Object.entries(this.sets)) out.push(["set", `${k}=${v}`]);
    return out;
  }

  /** The variant text of compare: every setting of the preset and the changes. */
  overrides() {
    const p = this.game.presets[this.preset] || {};
    const all = { ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])), ...this.sets };
    return Object.entries(all).map(([k, v]) => `${k}=${v}`);
  }
}

/** "NAME:k=v,k=v" as {name, params}. */
export function parseSpec(text) {
  const [name, rest] = String(text).split(/:(.*)/s);
  return { name: name.trim(), params: assignments((rest || "").split(",")) };
}

/** A policy for each seat, or one for every seat, each with its parameters. */
export class PolicyEditor {
  constructor(host, game, players, specs = [], { onChange = () => {}, id = "policy", seatName = (s) => `seat ${s}` } = {}) {
    Object.assign(this, { host, game, players, onChange, id, seatName });
    this.byName = Object.fromEntries(game.policies.map((p) => [p.name, p]));
    const parsed = specs.map(parseSpec);
    this.every = parsed.length <= 1;
    this.seats = Array.from({ length: Math.max(players, 1) }, (_, s) =>
      parsed[this.every ? 0 : s] || { name: game.default_policy, params: {} });
    this.render();
  }

  /** The base policy of a name and its parameter values (a named setting's changes included). */
  defaults(name) {
    const named = this.game.named_policies[name];
    const base = named ? parseSpec(named) : { name, params: {} };
    const pol = this.byName[base.name] || { name: base.name, params: [] };
    const values = Object.fromEntries(pol.params.map((r) => [r.key, base.params[r.key] ?? r.default]));
    return { pol, values };
  }

  setPlayers(n) {
    const first = this.seats[0];
    this.players = n;
    this.seats = Array.from({ length: n }, (_, s) => this.seats[s] || { ...first });
    this.render();
  }

  render() {
    this.host.replaceChildren();
    this.inputs = [];
    const box = el("input", { type: "checkbox", id: `${this.id}-every` });
    box.checked = this.every;
    box.addEventListener("change", () => {
      this.every = box.checked;
      if (this.every) this.seats = this.seats.map(() => ({ ...this.seats[0] }));
      this.render();
      this.onChange();
    });
    this.host.append(el("label", { class: "check" }, box, "the same policy for every seat"));
    const rows = this.every ? [0] : this.seats.map((_, s) => s);
    for (const s of rows) this.host.append(this.seatRow(s));
  }

  seatRow(s) {
    const spec = this.seats[s];
    const id = `${this.id}-${s}`;
    const names = [...this.game.policies.map((p) => p.name), ...Object.keys(this.game.named_policies)];
    const select = el("select", { id, name: "policy" }, names.map((n) => el("option", { value: n },
      this.game.named_policies[n] ? `${n} (${parseSpec(this.game.named_policies[n]).name} with its settings)` : n)));
    select.value = names.includes(spec.name) ? spec.name : this.game.default_policy;
    const { pol, values } = this.defaults(select.value);
    const params = el("div", { class: "fields" });
    const inputs = pol.params.map((row) => {
      const it = rowInput(row, spec.params[row.key] ?? values[row.key], values[row.key],
        () => this.readSeat(s, select, inputs), `${id}-${row.key}`);
      params.append(it.wrap);
      this.inputs.push(it);
      return it;
    });
    select.addEventListener("change", () => {
      this.setSeat(s, { name: select.value, params: {} });
      this.render();
      this.onChange();
    });
    const changed = Object.keys(spec.params).length;
    const details = el("details", { class: "params" },
      el("summary", {}, `parameters${changed ? ` (${changed} changed)` : ""}`), params);
    if (!pol.params.length) details.hidden = true;
    const label = this.every ? "every seat" : this.seatName(s);
    return el("div", { class: "policy-seat" }, el("div", { class: "field" },
      el("label", { for: id }, label), select), details);
  }

  /** The parameters whose value is not one the policy accepts: ``[{key, message, input}]``. */
  problems() {
    return (this.inputs || []).filter((it) => it.problem)
      .map((it) => ({ key: it.row.key, message: it.problem, input: it.input }));
  }

  /** Show ``message`` on the parameter ``key`` (a server's refusal naming it); true if shown. */
  showError(key, message) {
    const it = (this.inputs || []).find((x) => x.row.key === key);
    if (it && it.wrap.closest("details")) it.wrap.closest("details").open = true;
    return showOn(this.inputs, key, message);
  }

  readSeat(s, select, inputs) {
    const params = Object.fromEntries(inputs.filter((it) => !same(it.input.value, it.base))
      .map((it) => [it.row.key, it.input.value.trim()]));
    this.setSeat(s, { name: select.value, params });
    this.onChange();
  }

  setSeat(s, spec) {
    if (this.every) this.seats = this.seats.map(() => ({ ...spec }));
    else this.seats[s] = spec;
  }

  static text(spec) {
    const p = Object.entries(spec.params).map(([k, v]) => `${k}=${v}`).join(",");
    return p ? `${spec.name}:${p}` : spec.name;
  }

  /** The CLI's policy options: none for the default everywhere, one for every seat, or one per seat. */
  pairs() {
    const texts = this.seats.map(PolicyEditor.text);
    if (texts.every((t) => t === texts[0])) {
      return texts[0] === this.game.default_policy ? [] : [["policy", texts[0]]];
    }
    return texts.map((t) => ["policy", t]);
  }
}

/** Field values from the URL: every value of each key. */
export function urlValues() {
  const q = new URLSearchParams(location.search);
  const out = {};
  for (const [k, v] of q.entries()) (out[k] ||= []).push(v);
  return out;
}
