// The hand viewer: a hand of a run (simkit show's options) or a pasted record
// (simkit replay's checks), drawn frame by frame on a card table.

import {
  SUITS, SUIT_NAMES, api, card, chrome, el, moneyText, optionOfError, plainError, queryOf, replaceUrl,
} from "./common.js";
import { PolicyEditor, RulesEditor, gameTable, urlValues } from "./forms.js";
import { explain, loadTerms, markStatic } from "./terms.js";

const $ = (id) => document.getElementById(id);
const state = { view: null, frame: 0, timer: null, games: null, rules: null, policies: null, source: "run",
  opened: false, valid: true, loading: false, most: 17592186044415,
  serverErrors: {} };     // field id -> the server's refusal, shown on it until the field changes

/** The words of a hand the glossary explains (marked once per move shown). */
const WORDS = {
  "Pilipili Ndogo": "ndogo", "Pilipili Kubwa": "kubwa", Ndogo: "ndogo", Kubwa: "kubwa", bowers: "bowers",
  bower: "bowers", "no trump": "no trump", "thrown in": "thrown in", made: "made", pitcher: "pitcher",
  pitches: "pitcher", moon: "moon", stuck: "stuck", steal: "steal", high: "High", low: "Low", jack: "Jack",
  pile: "pile", pickups: "pickup", pickup: "pickup", "picks up": "pick up", burns: "burn", burn: "burn",
  starter: "starter", melds: "meld", meld: "meld", pozzetti: "pozzetto", pozzetto: "pozzetto",
  burracos: "burraco", burraco: "burraco", "wild cards": "wild", "wild card": "wild", closed: "closed",
  closer: "closed", dealer: "dealer", "second deck": "second deck",
};

// --- the form --------------------------------------------------------------------------

function game() { return state.games[$("game").value]; }

function buildGame(values = {}) {
  const g = game();
  const players = $("players");
  players.replaceChildren(...g.players.map((p) => el("option", { value: p }, `${p} players`)));
  const want = Number((values.players || [])[0]);
  players.value = g.players.includes(want) ? want : g.default_players;
  $("index-label").textContent = g.unit === "game" ? "game number" : "hand number";
  state.serverErrors = {};
  state.rules = new RulesEditor($("rules"), g, {
    preset: (values.preset || ["seed"])[0], sets: values.set || [], onChange: formChanged, id: "rules",
  });
  state.policies = new PolicyEditor($("policies"), g, Number(players.value), values.policy || [],
    { onChange: formChanged, id: "pol" });
  formChanged();
}

function formPairs() {
  const g = game();
  const pairs = [["game", g.name], ["seed", $("seed").value.trim()], ["index", $("index").value.trim()]];
  if (Number($("players").value) !== g.default_players) pairs.push(["players", $("players").value]);
  return [...pairs, ...state.rules.pairs(), ...state.policies.pairs()];
}

// --- checking the hand's number and the seed before the server does --------------------

/** The hand-number field's name as the page shows it ("hand number", "game number"). */
function indexLabel() { return game().unit === "game" ? "game number" : "hand number"; }

function indexProblem() {
  const name = indexLabel();
  const t = $("index").value.trim();
  if (t === "") return `${name}: give the number of the ${game().unit === "game" ? "game" : "hand"}, from 0 up, e.g. 0`;
  if (!/^[0-9]+$/.test(t)) return `${name}: '${t}' is not a whole number: write one from 0 up in digits, e.g. 5`;
  if (Number(t) > state.most) return `${name}: at most ${state.most.toLocaleString("en")}`;
  return null;
}

function seedProblem() {
  const t = $("seed").value.trim();
  if (!/^[0-9]+$/.test(t)) return `seed: '${t}' is not a whole number: write one from 0 up, e.g. 0`;
  if (BigInt(t) >= 2n ** 64n) return "seed: at most 18,446,744,073,709,551,615 (2^64 − 1)";
  return null;
}

/** Each field's error on it, and Show waits until they are fixed (the rules' and the
 *  policies' own errors too). */
function checkFields() {
  const problems = { index: indexProblem(), seed: seedProblem() };
  for (const [id, msg] of Object.entries(state.serverErrors)) if (!problems[id]) problems[id] = msg;
  for (const id of ["index", "seed"]) {
    const msg = problems[id] || "";
    if ($(`${id}-error`).textContent !== msg) $(`${id}-error`).textContent = msg;
    $(id).setAttribute("aria-invalid", msg ? "true" : "false");
  }
  const more = [...state.rules.problems(), ...state.policies.problems()];
  state.valid = !problems.index && !problems.seed && !more.length;
  $("show").disabled = !state.valid || state.loading;
}

/** A server's refusal of a run put on the field it names (true), or not placed (false). */
function serverError(err) {
  const where = optionOfError(err.message);
  if (!where) return false;
  const text = plainError(err.message, { hand: indexLabel() });
  if (where.option === "set" && where.key && state.rules.showError(where.key, text)) {
    $("rules").closest("details").open = true;
  } else if (where.option === "policy" && where.key && state.policies.showError(where.key, text)) {
    $("policies").closest("details").open = true;
  } else if (where.option === "hand" || where.option === "index") {
    state.serverErrors.index = text.startsWith(indexLabel()) ? text : `${indexLabel()}: ${text}`;
  } else if (where.option === "seed") {
    state.serverErrors.seed = text.startsWith("seed") ? text : `seed: ${text}`;
  } else {
    return false;
  }
  checkFields();
  return true;
}

function formChanged() {
  checkFields();
  const n = state.rules.count() + (state.rules.preset !== "seed" ? 1 : 0);
  $("rules-sub").textContent = n ? `${state.rules.preset}, ${state.rules.count()} changed` : "the rule book";
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((p) => p[1]).join(" · ") : state.games[$("game").value].default_policy;
  $("cli-show").textContent = cliText(formPairs());
}

function cliText(pairs) {
  const out = ["simkit show"];
  for (const [k, v] of pairs) {
    if (k === "game") out.push(v);
    else out.push(`--${k === "index" ? "hand" : k} ${/[\s:,;]/.test(v) ? JSON.stringify(v) : v}`);
  }
  return out.join(" ");
}

// --- showing a view -----------------------------------------------------------------------

async function showRun(event) {
  event?.preventDefault();
  if (!state.valid || state.loading) return;
  stopPlay();
  const pairs = formPairs();
  await load(() => api(`/api/show?${queryOf(pairs)}`), pairs);
}

async function replayPasted(event) {
  event?.preventDefault();
  stopPlay();
  const policy = $("paste-policy").value.split(/\s+/).filter(Boolean);
  const body = JSON.stringify({ record: $("paste").value, policy });
  await load(() => api("/api/replay", { method: "POST", headers: { "Content-Type": "application/json" }, body }), null);
}

/** Show what ``fetchView`` answers, from its first move (a shared address's step only
 *  on the page's first hand); a refusal clears the table, so that no other hand stays
 *  on screen under the message as if it were the one asked for. */
async function load(fetchView, pairs) {
  const alert = $("alert");
  alert.textContent = "";
  const button = pairs ? $("show") : $("replay");
  button.disabled = true;
  state.loading = true;
  const first = !state.opened;
  state.opened = true;
  try {
    const view = await fetchView();
    state.view = view;
    state.source = pairs ? "run" : "paste";
    const step = first && pairs ? Number(new URLSearchParams(location.search).get("step")) : 0;
    if (pairs) replaceUrl(pairs);
    state.frame = step > 0 ? Math.min(step, view.frames.length - 1) : 0;
    $("viewer").hidden = false;
    $("record-panel").hidden = false;
    // a break allowed after each comma of the long policy lines, so that they wrap there
    $("record").replaceChildren(...view.record.split(",").flatMap((t, i) => (i ? [",", el("wbr"), t] : [t])));
    $("slider").max = String(view.frames.length - 1);
    draw();
  } catch (e) {
    clearView();
    if (!(pairs && serverError(e))) alert.textContent = plainError(e.message);
  } finally {
    state.loading = false;
    button.disabled = pairs ? !state.valid : false;
  }
}

/** No hand on screen: the table, the record and the step of the address cleared. */
function clearView() {
  state.view = null;
  state.frame = 0;
  $("viewer").hidden = true;
  $("record-panel").hidden = true;
  $("felt").replaceChildren();
  $("record").textContent = "";
  $("caption").textContent = "";
  const pairs = new URLSearchParams(location.search);
  if (pairs.has("step")) { pairs.delete("step"); replaceUrl([...pairs.entries()]); }
}

/** Where each seat sits: seat 0 at the bottom, play going clockwise. */
function placeOf(players) {
  if (players === 2) return ["s", "n"];
  if (players === 3) return ["s", "w", "e"];
  if (players === 4) return ["s", "w", "n", "e"];
  return Array.from({ length: players }, (_, s) => (s === 0 ? "s" : s === 1 ? "w" : s === players - 1 ? "e" : "n"));
}

function seatBox(view, f, s) {
  const hand = f.hands[s] || [];
  const box = el("div", { class: "seat" + (f.actor === s ? " actor" : ""), "data-seat": s },
    el("div", { class: "name" }, view.seats[s], el("span", { class: "count" },
      `${hand.length} card${hand.length === 1 ? "" : "s"}`)));
  const cards = el("div", { class: "cards" }, hand.map((c) => card(c, { size: hand.length > 14 ? "xs" : "sm" })));
  box.append(cards);
  return box;
}

/** A text that is only a suit letter ("trump: D") as its symbol. */
function suitText(text) {
  const m = /^([CDHS])$/.exec(text);
  if (!m) return el("span", { class: "txt" }, text);
  const red = m[1] === "D" || m[1] === "H";
  return el("span", { class: "txt" }, el("span", { class: "suit-text" + (red ? " red" : "") }, SUITS[m[1]]),
    ` ${SUIT_NAMES[m[1]]}`);
}

function areaBox(a) {
  const total = a.rows.reduce((n, r) => n + (r.cards || []).length, 0);
  const size = total > 14 ? "xs" : "sm";
  // a trick (every row one card): the cards side by side, each over its player
  const played = a.rows.length > 0 && a.rows.every((r) => (r.cards || []).length === 1);
  // many rows of several cards (Burraco's melds): packed as blocks instead of lines
  const flow = !played && a.rows.length >= 4 && a.rows.every((r) => (r.cards || []).length >= 2);
  const box = el("div", { class: "area" + (played ? " played" : "") + (flow ? " flow" : "") }, el("h4", {}, a.title));
  if (!a.rows.length) box.append(el("div", { class: "arow" }, el("span", { class: "txt muted" }, "nothing yet")));
  if (played) {
    box.append(el("div", { class: "trick" }, a.rows.map((r) => el("div", { class: "play" + (r.mark ? " marked" : "") },
      card(r.cards[0], { size: "sm" }), el("span", { class: "lab" }, r.label), r.text ? el("span", { class: "lab" }, r.text) : null))));
    return box;
  }
  for (const r of a.rows) {
    const row = el("div", { class: "arow" + (r.mark ? " marked" : "") },
      el("span", { class: "lab" }, r.label));
    if ((r.cards || []).length) {
      // cards the game keeps face down (Shiesta's down row): shown, but tinted as hidden
      const down = /face.down/i.test(r.label);
      row.append(el("span", { class: "cards" + (down ? " down" : ""), title: down ? "face down: the players do not see these" : null },
        r.cards.map((c) => card(c, { size }))));
    }
    if (r.text) row.append(suitText(moneyText(r.text)));
    if (r.mark && typeof r.mark === "string") row.append(el("span", { class: "markt" }, r.mark));
    box.append(row);
  }
  return box;
}

function draw() {
  const view = state.view;
  const n = view.frames.length;
  const f = view.frames[state.frame];
  const seen = new Set();
  explain(Object.assign($("caption"), { textContent: f.caption }), view.game, WORDS, seen);
  const felt = $("felt");
  const places = placeOf(view.players);
  const seats = el("div", { class: `seats p${view.players}` });
  const slots = {};
  for (const p of ["n", "w", "e", "s"]) {
    slots[p] = el("div", { class: `slot slot-${p}` });
    seats.append(slots[p]);
  }
  places.forEach((p, s) => slots[p].append(seatBox(view, f, s)));
  const center = el("div", { class: "center" }, f.areas.map(areaBox));
  for (const t of center.querySelectorAll("h4, .lab")) explain(t, view.game, WORDS, seen);
  seats.append(center);
  const score = el("div", { class: "score", "aria-label": "score" },
    (f.score || []).map(([label, value]) => el("span", {}, label, el("b", {}, moneyText(value)))));
  felt.replaceChildren(seats, score);
  $("pos").textContent = `move ${state.frame} of ${n - 1}`;
  $("slider").value = String(state.frame);
  const had = document.activeElement;
  $("first").disabled = $("prev").disabled = state.frame === 0;
  $("next").disabled = $("last").disabled = state.frame === n - 1;
  // a step button that has just disabled itself ("« First" at the first move) hands the
  // focus to the way back out, instead of dropping it to the page
  if (had && had.disabled && had.closest && had.closest("#stepper")) {
    const to = ["first", "prev"].includes(had.id) ? "next" : "prev";
    ($(to).disabled ? $("slider") : $(to)).focus();
  }
  const end = state.frame === n - 1;
  $("result").hidden = !end;
  const terms = new Set();
  $("result-list").replaceChildren(...(end ? view.result.flatMap(([k, v]) => [
    explain(el("dt", {}, k), view.game, WORDS, terms), el("dd", {}, moneyText(v))]) : []));
  if (state.source === "run") {
    const pairs = new URLSearchParams(location.search);
    if (state.frame) pairs.set("step", state.frame); else pairs.delete("step");
    replaceUrl([...pairs.entries()]);
  }
}

function go(i) {
  if (!state.view) return;
  const n = state.view.frames.length;
  state.frame = Math.max(0, Math.min(n - 1, i));
  draw();
}

function stopPlay() {
  clearInterval(state.timer);
  state.timer = null;
  $("play").textContent = "▶▶ Play";
  $("play").setAttribute("aria-pressed", "false");
}

function togglePlay() {
  if (state.timer) { stopPlay(); return; }
  if (state.frame >= state.view.frames.length - 1) go(0);
  $("play").textContent = "Pause";
  $("play").setAttribute("aria-pressed", "true");
  state.timer = setInterval(() => {
    if (state.frame >= state.view.frames.length - 1) stopPlay(); else go(state.frame + 1);
  }, 700);
}

function keys(e) {
  if (!state.view || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  if (t.matches("input[type=text], textarea, select, [role=tab]")) return;
  const to = { ArrowLeft: state.frame - 1, ArrowRight: state.frame + 1, Home: 0, End: state.view.frames.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  stopPlay();
  go(to);
}

async function copyRecord() {
  const text = state.view.record;
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    const range = document.createRange();
    range.selectNodeContents($("record"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand("copy");
  }
  $("copied").textContent = "Copied the record.";
  setTimeout(() => { $("copied").textContent = ""; }, 2000);
}

function tabs(which, focus = false) {
  const run = which === "run";
  for (const [id, on] of [["tab-run", run], ["tab-paste", !run]]) {
    $(id).setAttribute("aria-selected", String(on));
    $(id).tabIndex = on ? 0 : -1;          // roving: Tab reaches the chosen tab only
  }
  $("from-run").hidden = !run;
  $("from-paste").hidden = run;
  $("alert").textContent = "";
  if (focus) $(run ? "tab-run" : "tab-paste").focus();
}

/** The tabs' keys (the WAI-ARIA tabs pattern): Left/Right to the other tab, Home to the
 *  first, End to the last, each choosing the tab it moves to. */
function tabKeys(e) {
  const order = ["run", "paste"];
  const at = order.indexOf(e.target.id === "tab-run" ? "run" : "paste");
  const to = { ArrowLeft: (at + order.length - 1) % order.length, ArrowRight: (at + 1) % order.length,
    Home: 0, End: order.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  tabs(order[to], true);
}

async function start() {
  chrome("/hand");
  let lim;
  [state.games, , lim] = await Promise.all([gameTable(), loadTerms(), api("/api/limits").catch(() => null)]);
  if (lim && lim.show && typeof lim.show.index === "number") state.most = lim.show.index;
  markStatic($("help"));
  const values = urlValues();
  $("game").replaceChildren(...Object.values(state.games).map((g) => el("option", { value: g.name }, g.title)));
  if (values.game && state.games[values.game[0]]) $("game").value = values.game[0];
  if (values.seed) $("seed").value = values.seed[0];
  if (values.index) $("index").value = values.index[0];
  buildGame(values);
  $("game").addEventListener("change", () => buildGame());
  $("players").addEventListener("change", () => { state.policies.setPlayers(Number($("players").value)); formChanged(); });
  for (const id of ["seed", "index"]) $(id).addEventListener("input", () => { delete state.serverErrors[id]; formChanged(); });
  // a rule or parameter typed in is checked as it is typed (its change event sets it)
  for (const id of ["rules", "policies"]) $(id).addEventListener("input", () => checkFields());
  $("from-run").addEventListener("submit", showRun);
  $("from-paste").addEventListener("submit", replayPasted);
  $("tab-run").addEventListener("click", () => tabs("run"));
  $("tab-paste").addEventListener("click", () => tabs("paste"));
  document.querySelector("[role=tablist]").addEventListener("keydown", tabKeys);
  $("first").addEventListener("click", () => { stopPlay(); go(0); });
  $("prev").addEventListener("click", () => { stopPlay(); go(state.frame - 1); });
  $("next").addEventListener("click", () => { stopPlay(); go(state.frame + 1); });
  $("last").addEventListener("click", () => { stopPlay(); go(state.view.frames.length - 1); });
  $("play").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", () => { stopPlay(); go(Number($("slider").value)); });
  $("copy").addEventListener("click", copyRecord);
  document.addEventListener("keydown", keys);
  // a first visit shows a hand at once (the form's defaults: hand 0 of seed 0)
  if ((values.game && values.index) || !location.search) await showRun();
}

start().catch((e) => { $("alert").textContent = plainError(e.message); });
