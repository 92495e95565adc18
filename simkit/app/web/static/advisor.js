// The advisor: a hand picked (mouse, touch or keyboard) or typed, every CLI option of
// `simkit advise`, the answer as a table, charts and the recommendation with its reasons;
// the address holds every input, and a link with run=1 runs the question on open.

import {
  SUITS, SUIT_NAMES, api, card, cardParts, checkCount, chrome, countDigits, el, later, limits,
  money, optionOfError, pct, plainError, queryOf, replaceUrl, runJob, signed, withCi,
} from "./common.js";
import { PolicyEditor, RulesEditor, fieldHelp, gameTable, showWhileFocused, urlValues } from "./forms.js";
import { term } from "./glossary.js";
import { explained as explainedText, loadTerms, termOf } from "./terms.js";

const $ = (id) => document.getElementById(id);
const ON = ["1", "true", "on", "yes"];
const state = {
  games: null, game: null, hand: [], rules: null, policies: null, job: null, typed: false,
  lastPairs: null, handValid: false, focus: null, limits: null, answer: null,
  serverErrors: {},       // field id -> the server's refusal, shown until the field changes
};

/** The page's own fields: their names in sentences and how their errors read. */
const FIELDS = {
  players: { label: "players", doc: "How many play. Pepper: 2, 3 or 4 (four play as two teams of two); Pitch: 2 to 8." },
  dealer: { label: "dealer", doc: "The seat that deals. The bidding starts at its left; the dealer speaks last." },
  seat: { label: "your seat", doc: "Where you sit, numbered clockwise from 0. By default left of the dealer: the first to bid." },
  score: { label: "score", doc: "The game's score, your side first, e.g. 24:10 (3 players: each opponent's too, clockwise, e.g. 10:5:7). With a score each plan also gets its chance to win the game, and that chance, not EV, decides." },
  samples: { label: "samples (deals)", unit: "deals", example: "100000", doc: "How many deals of the unseen cards every plan is played on: more deals, narrower intervals and a longer run." },
  seed: { label: "seed", doc: "The random stream: the same seed deals the same cards, so the same inputs give the same numbers." },
  games: { label: "games per score", unit: "games", example: "10000", doc: "With a score: how many games are played out from each score a hand can leave." },
  plans: { label: "plans", doc: "The plans to play: two or more." },
};
const LABELS = Object.fromEntries(Object.entries(FIELDS).map(([k, f]) => [k, f.label]));

// --- game terms, explained where they appear -----------------------------------------------

function knows(w) {
  return termOf(w, state.game && state.game.name) !== null;
}

/** ``word`` as a glossary button (glossary.js) when the glossary has it for this game,
 *  else plain text. */
function word(w, text = null) {
  return knows(w) ? term(w, state.game.name, text ?? w) : document.createTextNode(text ?? w);
}

/** The words of a sentence the glossary explains, each the first time it appears. */
const EXPLAINED = ["95% interval", "chance to win the game", "chance to win", "Ndogo", "Kubwa", "ndogo",
  "kubwa", "moon", "EV", "pp", "bowers", "thrown in", "pitcher", "stuck dealer"];

/** A sentence as nodes: its game terms as glossary buttons (the first of each; terms.js). */
function explained(text) {
  return explainedText(text, state.game.name, EXPLAINED);
}

// --- the hand -------------------------------------------------------------------------

/** A typed card as the deck writes it ("th" -> "10H", "J♥" -> "JH"), or null. */
function canonical(token) {
  const p = cardParts(token);
  if (!p.suit || p.copies) return null;
  return p.rank + p.suit;
}

function handSize() {
  return state.game.hand_size[$("players").value];
}

function deckCards() {
  return new Set(state.game.deck.flat());
}

function deckText() {
  const ranks = state.game.deck[0].map((c) => c.slice(0, -1)).reverse().join(" ");
  return `the ${state.game.deck.flat().length}-card ${gameName()} deck (${ranks} of each suit)`;
}

/** The hand read from text: ``{cards, error, bad}``: every card that reads as one (the fan
 *  shows them), the first problem as one sentence naming the card, and ``bad`` the short
 *  word of it for the count ("JX is not a card", "JH twice"). */
function readHand(text) {
  const tokens = text.replace(/,/g, " ").split(/\s+/).filter(Boolean);
  const deck = deckCards();
  const cards = [];
  let error = null, bad = null;
  const first = (e, b) => { if (!error) { error = e; bad = b; } };
  for (const t of tokens) {
    const c = canonical(t);
    if (c === null) {
      first(`${t} is not a card: write a rank (2-10, J, Q, K, A) and a suit (C, D, H, S), e.g. JH or 10S`, `${t} is not a card`);
    } else if (!deck.has(c)) {
      first(`${t} is not a card of ${deckText()}`, `${t} is not a card of this deck`);
    } else if (cards.includes(c)) {
      first(`${c} is in the hand twice: each card may appear once`, `${c} is there twice`);
    } else {
      cards.push(c);
    }
  }
  return { cards, error, bad };
}

/** The game's short name for sentences ("Pepper", "Pitch"). */
function gameName() {
  return state.game.name[0].toUpperCase() + state.game.name.slice(1);
}

function countError(n) {
  const size = handSize();
  const players = $("players").value;
  if (n === size) return null;
  const what = `a ${players}-player ${gameName()} hand has ${size} cards`;
  return n > size ? `${what}; this one has ${n}: drop ${n - size}`
    : `${what}; this one has ${n}: add ${size - n} more`;
}

/** Check the hand and show it: the fan, the grid, the alert, the Advise button. */
function handChanged({ fromText = false, refused = null } = {}) {
  const text = $("hand").value;
  const read = readHand(text);
  if (!fromText) $("hand").value = state.hand.join(" ");
  else state.hand = read.cards;
  let error = refused || read.error;
  const counted = countError(state.hand.length);
  if (!error && counted && (state.hand.length > handSize() || (state.typed && state.hand.length))) error = counted;
  $("alert").textContent = error || "";
  $("hand").setAttribute("aria-invalid", error && !refused ? "true" : "false");
  state.handValid = !read.error && !counted;
  const left = handSize() - state.hand.length;
  const bad = fromText && read.bad ? `${read.bad}: ` : "";
  $("count-hint").classList.toggle("bad", !!bad);
  $("count-hint").textContent = bad ? `${bad}${state.hand.length} of ${handSize()} cards read`
    : left > 0 ? `${state.hand.length} of ${handSize()} cards: pick ${left} more`
      : left === 0 ? `${handSize()} cards: ready` : "";
  drawFan();
  syncGrid();
  inputsChanged();
}

function drawFan() {
  const fan = $("fan");
  if (!state.hand.length) {
    fan.replaceChildren(el("span", { class: "empty" }, "Pick your cards below"));
    return;
  }
  fan.style.setProperty("--n", String(Math.max(state.hand.length, handSize())));
  fan.replaceChildren(...state.hand.map((c, i) => {
    const b = card(c, { size: "lg", tag: "button" });
    b.title = `${b.title}: click to drop it`;
    b.querySelector(".sr-only").append(": drop it");
    b.addEventListener("click", () => {
      const keyboard = document.activeElement === b;
      toggle(c);
      if (!keyboard) return;
      // the focus stays in the hand: on the card that took this one's place, else the box
      const next = $("fan").querySelectorAll("button.card")[Math.min(i, state.hand.length - 1)];
      (next || $("hand")).focus();
    });
    return b;
  }));
}

// the deck: one composite widget (a grid), one Tab stop, the arrow keys inside

function gridButtons() {
  return Array.from($("grid").querySelectorAll("button.card"));
}

/** The deck as a grid: a row per suit, a cell per card (built once per game). */
function buildGrid() {
  const grid = $("grid");
  const rows = state.game.deck;
  grid.style.setProperty("--n", String(rows[0].length));
  grid.classList.toggle("long", rows[0].length > 8);
  grid.replaceChildren(...rows.map((row, r) => {
    const suit = row[0].slice(-1);
    const line = el("div", { class: "row", role: "row" },
      el("span", { class: "suit" + ("DH".includes(suit) ? " red" : ""), role: "rowheader" },
        el("span", { "aria-hidden": "true" }, SUITS[suit]), el("span", { class: "sr-only" }, SUIT_NAMES[suit])));
    row.forEach((c, col) => {
      const b = card(c, { tag: "button" });
      Object.assign(b.dataset, { row: String(r), col: String(col) });
      b.tabIndex = -1;
      b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", () => { state.focus = c; toggle(c); });
      b.addEventListener("focus", () => { state.focus = c; syncTabStop(); });
      line.append(el("span", { class: "cell", role: "gridcell" }, b));
    });
    return line;
  }));
  state.focus = rows[0][0];
}

/** The picked cards pressed, and the one Tab stop of the grid on the card last visited. */
function syncGrid() {
  for (const b of gridButtons()) {
    const picked = state.hand.includes(b.dataset.card);
    b.classList.toggle("picked", picked);
    b.setAttribute("aria-pressed", String(picked));
  }
  syncTabStop();
}

function syncTabStop() {
  const buttons = gridButtons();
  if (!buttons.some((b) => b.dataset.card === state.focus)) state.focus = buttons.length ? buttons[0].dataset.card : null;
  for (const b of buttons) b.tabIndex = b.dataset.card === state.focus ? 0 : -1;
}

function gridKeys(e) {
  const b = e.target.closest && e.target.closest("button.card");
  if (!b || e.altKey || e.metaKey) return;
  const rows = state.game.deck;
  const r = Number(b.dataset.row), c = Number(b.dataset.col);
  const R = rows.length, C = rows[0].length;
  const to = {
    ArrowRight: [r, Math.min(C - 1, c + 1)], ArrowLeft: [r, Math.max(0, c - 1)],
    ArrowDown: [Math.min(R - 1, r + 1), c], ArrowUp: [Math.max(0, r - 1), c],
    Home: e.ctrlKey ? [0, 0] : [r, 0], End: e.ctrlKey ? [R - 1, C - 1] : [r, C - 1],
  }[e.key];
  if (!to || (e.ctrlKey && !["Home", "End"].includes(e.key))) return;
  e.preventDefault();
  state.focus = rows[to[0]][to[1]];
  syncTabStop();
  $("grid").querySelector(`button[data-card="${state.focus}"]`).focus();
}

function toggle(c) {
  state.typed = false;
  const i = state.hand.indexOf(c);
  if (i >= 0) {
    state.hand.splice(i, 1);
    handChanged();
    return;
  }
  if (state.hand.length >= handSize()) {
    const players = $("players").value;
    handChanged({ refused: `a ${players}-player ${gameName()} hand has ${handSize()} cards: drop one before adding ${c}` });
    return;
  }
  state.hand.push(c);
  handChanged();
}

// --- the options ----------------------------------------------------------------------

function options(select, values, chosen) {
  select.replaceChildren(...values.map(([v, text]) => el("option", { value: v }, text)));
  if (values.some(([v]) => String(v) === String(chosen))) select.value = String(chosen);
}

/** The dealer and seat choices for the player count (keeping the chosen ones if they exist). */
function seats(dealer = $("dealer").value, seat = $("seat").value) {
  const P = Number($("players").value);
  const all = [...Array(P).keys()];
  options($("dealer"), all.map((s) => [s, `seat ${s}`]), Number(dealer) < P ? dealer : 0);
  const left = (Number($("dealer").value) + 1) % P;
  options($("seat"), [["", `left of the dealer (seat ${left})`], ...all.map((s) => [s, `seat ${s}`])], seat);
}

function planBoxes(chosen) {
  const names = state.game.plans[$("players").value];
  // every plan (the default) stays every plan of the new player count; a choice keeps its names
  const boxes = $("plan-boxes").querySelectorAll("input");
  const all = !boxes.length || chosenPlans() === null;
  const keep = chosen !== undefined ? chosen
    : all ? null : new Set(Array.from(boxes).filter((b) => b.checked).map((b) => b.value));
  $("plan-boxes").replaceChildren(...[...names, "policy"].map((n) => {
    const box = el("input", { type: "checkbox", value: n, id: `plan-${n}` });
    box.checked = keep === null ? n !== "policy" : (keep.size ? keep.has(n) : n !== "policy");
    box.addEventListener("change", () => { delete state.serverErrors.plans; inputsChanged(); });
    const label = el("label", { for: box.id }, n === "policy" ? "policy (the seat's own bidding)" : n);
    const explain = knows(n) ? term(n, state.game.name, "?") : null;
    if (explain) explain.setAttribute("aria-label", `what ${n} means`);
    return el("div", { class: "check plan" }, box, label, explain);
  }));
}

/** The plans option: null for every plan (the boxes as they start), else the checked names. */
function chosenPlans() {
  const boxes = Array.from($("plan-boxes").querySelectorAll("input"));
  const all = boxes.every((b) => b.checked === (b.value !== "policy"));
  return all ? null : boxes.filter((b) => b.checked).map((b) => b.value).join(",");
}

/** Whether the game takes a score (Pitch plays for money: no game to win). */
function scored() {
  return state.game.score ?? state.game.name === "pepper";
}

/** A count as the command takes it: "100,000" as 100000 (else as typed, for its error). */
function asCount(text) {
  return countDigits(text) ?? text.trim();
}

/** The CLI's options of the inputs, in a fixed order (the address and the API's query). */
function pairs() {
  const g = state.game;
  const out = [["game", g.name], ["hand", state.hand.join(" ")], ["players", $("players").value]];
  if ($("seat").value !== "") out.push(["seat", $("seat").value]);
  if ($("dealer").value !== "0") out.push(["dealer", $("dealer").value]);
  out.push(...state.rules.pairs(), ...state.policies.pairs());
  const score = scored() ? $("score").value.trim() : "";
  if (score) out.push(["score", score]);
  out.push(["samples", asCount($("samples").value)], ["seed", $("seed").value.trim()]);
  if (score && asCount($("games").value) !== "10000") out.push(["games", asCount($("games").value)]);
  const plans = chosenPlans();
  if (plans !== null) out.push(["plans", plans]);
  if ($("declarer").checked) out.push(["declarer", "1"]);
  if (g.bound && $("bound").checked) out.push(["bound", "1"]);
  return out;
}

// --- checking the inputs before the server does ----------------------------------------

/** The rule value in force (a changed setting, the preset's, or the default). */
function ruleValue(key) {
  const it = (state.rules.inputs || []).find((x) => x.row.key === key);
  return it ? it.input.value.trim() : null;
}

function scoreProblem(text) {
  const t = text.trim();
  if (!t) return null;
  const three = $("players").value === "3";
  const form = three ? "24:10, or each opponent's score too, 24:10:5" : "24:10";
  const parts = t.split(":").map((p) => p.trim());
  if (parts.length < 2 || parts.length > (three ? 3 : 2) || parts.some((p) => !/^[+-]?[0-9]+$/.test(p))) {
    return `score: write your side's score, a colon and the others', e.g. ${form}`;
  }
  const values = parts.map(Number);
  if (values.some((v) => Math.abs(v) > 1e6)) return "score: a score is at most 1,000,000 either way";
  const target = Number(ruleValue("target"));
  if (Number.isFinite(target) && target > 0) {
    const top = Math.max(...values);
    const shared = values.filter((v) => v === top).length > 1 && ruleValue("tie") === "play_on";
    if (top >= target && !shared) {
      return `score: the game ends when a side reaches ${target} (the target), so a game still being played has every score below ${target}`;
    }
  }
  return null;
}

function seedProblem(text) {
  const t = text.trim();
  if (/^[-−][0-9]+$/.test(t)) return `seed: ${t.replace("-", "−")} is below 0: write a whole number from 0 up, e.g. 0`;
  if (!/^\+?[0-9]+$/.test(t)) return `seed: '${t}' is not a whole number: write one from 0 up, e.g. 0`;
  if (BigInt(t.replace("+", "")) >= 2n ** 64n) return "seed: at most 18,446,744,073,709,551,615 (2^64 − 1)";
  return null;
}

/** Every own field's problem now: {id: sentence}. */
function fieldProblems() {
  const lim = state.limits || { samples: 1e8, games: 1e12 };
  const out = {};
  const count = (id) => {
    const f = FIELDS[id];
    const r = checkCount($(id).value, { label: f.label, unit: f.unit, most: lim[id], example: f.example });
    if (r.error) out[id] = r.error;
  };
  count("samples");
  const s = seedProblem($("seed").value);
  if (s) out.seed = s;
  if (scored() && $("score").value.trim() && !$("declarer").checked) {
    const sc = scoreProblem($("score").value);
    if (sc) out.score = sc;
    count("games");
  }
  if (chosenPlans() !== null && (chosenPlans() || "").split(",").filter(Boolean).length < 2) {
    out.plans = "plans: tick two or more plans to compare";
  }
  for (const [id, msg] of Object.entries(state.serverErrors)) if (!out[id]) out[id] = msg;
  return out;
}

/** Show each field's problem on it (and open its group if it is folded away). */
function showProblems(problems) {
  for (const id of Object.keys(FIELDS)) {
    const field = $(`${id}-field`);
    if (!field) continue;
    let box = field.querySelector(":scope > .field-error");
    if (!box) {
      box = el("p", { class: "field-error", id: `${id}-error`, "aria-live": "polite" });
      field.append(box);
    }
    const msg = problems[id] || "";
    if (box.textContent !== msg) box.textContent = msg;
    const input = id === "plans" ? null : $(id);
    if (input) input.setAttribute("aria-invalid", msg ? "true" : "false");
    if (msg) {
      const group = field.closest("details");
      if (group && !group.open && !field.dataset.shown) group.open = true;
      field.dataset.shown = "1";
    } else {
      delete field.dataset.shown;
    }
  }
}

/** Everything that keeps Advise waiting: the hand, the fields, the rules and policies. */
function blockers() {
  const problems = fieldProblems();
  showProblems(problems);
  const more = [...state.rules.problems(), ...state.policies.problems()];
  for (const p of more) {
    const group = p.input.closest("details.group");
    if (group && !group.open) group.open = true;
  }
  return { problems, more };
}

function inputsChanged() {
  if (!state.rules) return;
  const { problems, more } = blockers();
  const fieldsValid = !Object.keys(problems).length && !more.length;
  const valid = state.handValid && fieldsValid;
  $("advise").dataset.invalid = valid ? "0" : "1";
  $("advise").disabled = !valid || !!state.job;
  state.valid = valid;
  replaceUrl(pairs());
  const n = state.rules.count();
  $("rules-sub").textContent = state.rules.preset === "seed" && !n ? "the rule book"
    : `${state.rules.preset}${n ? `, ${n} changed` : ""}`;
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : state.game.default_policy;
  $("run-sub").textContent = problems.samples || problems.seed ? "a value to fix"
    : `${Number(asCount($("samples").value)).toLocaleString("en")} deals, seed ${$("seed").value.trim()}`;
  if (!state.job) {
    const waiting = [...Object.keys(problems).map((id) => FIELDS[id].label), ...more.map((p) => p.key.replaceAll("_", " "))];
    $("estimate").textContent = waiting.length ? `Advise waits for: ${waiting.join(", ")}` : "";
  }
  // an estimate asked for before this change answers a question no longer on
  // the page: its answer, arriving late, must not overwrite what is shown now
  state.lastPairs = null;
  estimateSoon();
}

const estimateSoon = later(async () => {
  const box = $("estimate");
  if (!state.valid || state.job) return;
  const p = pairs();
  const key = queryOf(p);
  state.lastPairs = key;
  box.textContent = "expected time: estimating…";
  try {
    const e = await api(`/api/estimate?${queryOf([["command", "advise"], ...p])}`);
    if (state.lastPairs === key && !state.job) box.textContent = `expected time: ${e.text}`;
  } catch (err) {
    if (state.lastPairs !== key || state.job) return;
    box.textContent = "";
    if (!serverError(err)) $("alert").textContent = plainError(err.message, LABELS);
  }
}, 350);

/** A server's refusal shown on the field it names (true), or not placed (false). */
function serverError(err) {
  const where = optionOfError(err.message);
  if (!where) return false;
  const text = plainError(err.message, LABELS);
  if (where.option === "set" && where.key && state.rules.showError(where.key, text)) {
    $("rules-group").open = true;
  } else if (where.option === "policy" && where.key && state.policies.showError(where.key, text)) {
    $("policies-group").open = true;
  } else if (FIELDS[where.option]) {
    state.serverErrors[where.option] = text.startsWith(FIELDS[where.option].label) ? text
      : `${FIELDS[where.option].label}: ${text.replace(/^bad \S+ /, "")}`;
  } else {
    return false;
  }
  inputsChanged();
  return true;
}

// --- running ----------------------------------------------------------------------------

function advise() {
  if (!state.valid || state.job) return null;
  return runJob(state, "advise", pairs(), {
    button: $("advise"), cancel: $("cancel"), progress: $("progress"), bar: $("bar"),
    percent: $("percent"), eta: $("eta"), estimate: $("estimate"), alert: $("alert"),
    onError: serverError,
  }, showAnswer);
}

function cancel() {
  if (state.job) state.job.cancel();
}

// --- the answer -------------------------------------------------------------------------

const COLUMNS = {
  holds: { head: "holds", term: "holds", key: "p_contract", lo: "contract_low", hi: "contract_high", fmt: (v) => pct(v) },
  made: { head: "made", term: "made", key: "p_make", lo: "ci_low", hi: "ci_high", fmt: (v) => pct(v) },
  us: { head: "us", label: "us (points)", key: "ev_us", lo: "ev_us_low", hi: "ev_us_high", fmt: (v) => signed(v) },
  them: { head: "them", label: "them (points)", key: "ev_them", lo: "ev_them_low", hi: "ev_them_high", fmt: (v) => signed(v) },
  ev: { head: "EV", term: "EV", key: "ev", lo: "ev_low", hi: "ev_high", fmt: (v) => signed(v) },
  points: { head: "points", key: "points", fmt: (v) => signed(v) },
  win: { head: "chance to win", term: "chance to win", key: "p_win", lo: "p_win_low", hi: "p_win_high", fmt: (v) => pct(v) },
  bound: { head: "bound", key: "p_make_bound", lo: "bound_low", hi: "bound_high", fmt: (v) => pct(v) },
};

/** What a plan's value is in, per game, with the digits the CLI's table prints it with. */
const VALUE = {
  pepper: { digits: 2, head: "EV", axis: "EV per hand, points (us minus them)" },
  pitch: { digits: 2, head: "EV ($)", axis: "EV per hand, dollars", money: true },
};

/** What a plan's value is in: its digits, column head, axis and how a value is written
 *  (``fmt``: money as "+$0.09", points as "+2.31"). */
function valueOf(game) {
  const v = VALUE[game] || { digits: 2, head: "EV", axis: "EV per hand" };
  return { ...v, fmt: (x, d = v.digits) => (v.money ? money(x, d) : signed(x, d)) };
}

function columnsOf(rows, game) {
  const has = (k) => rows.some((r) => k in r);
  const v = valueOf(game);
  return Object.entries(COLUMNS)
    .filter(([name, c]) => has(c.key) && !(name === "points" && has("ev_us")))   // Pitch: points = us
    .map(([name, c]) => (name === "ev" ? { name, ...c, head: v.head, fmt: (x) => v.fmt(x) } : { name, ...c }));
}

function showAnswer(a) {
  state.answer = a;
  if (a.value) {
    VALUE[a.game] = { digits: a.value.digits, head: a.value.head, axis: `EV per hand, ${a.value.unit}`,
      money: a.value.unit === "dollars" };
  }
  $("answer").hidden = false;
  const rec = a.recommended;
  $("recommended").replaceChildren(word(rec));
  const close = a.close ?? /too close to call/.test(a.reason || "");
  const chip = $("chip");
  chip.classList.toggle("close", close);
  chip.querySelector("small").textContent = close ? "leans to" : "advice";
  const otherChip = chip.querySelector(".or");
  if (otherChip) otherChip.remove();
  if (close && (a.close_to || (a.threshold && a.threshold.vs))) {
    chip.append(el("small", { class: "or" }, `or ${a.close_to || a.threshold.vs}`));
  }
  const badge = $("close-badge");
  badge.textContent = close ? "too close to call" : "clear choice";
  badge.className = "badge " + (close ? "close" : "clear");
  const th = a.threshold;
  const other = a.close_to || (th && th.vs);
  const by = th && th.by === "p_win" ? "chance to win the game" : "EV";
  const head = [];
  if (close) {
    head.push(word(rec), " or ", other ? word(other) : "the next best plan",
      `: too close to call. The difference in `, word(by === "EV" ? "EV" : "chance to win", by),
      ` is not surely more than ${th ? th.text : "a player would act on"}.`);
  } else {
    head.push(rec === "pass" ? "Pass" : "Bid ", rec === "pass" ? "" : word(rec), ".");
    if (th) head.push(` It beats every other plan by more than ${th.text} of `, word(by === "EV" ? "EV" : "chance to win", by), ".");
  }
  // the advice in words first (the server's sentence); the numbers after it
  const said = a.says ? [...explained(`${a.says}.`)] : head.filter((x) => x !== "");
  $("headline").replaceChildren(...said);
  $("reason").replaceChildren(...(a.reason ? [el("b", {}, "In numbers: "), ...explained(a.reason)] : []));
  $("decides").hidden = !a.decides;
  $("decides").replaceChildren(...(a.decides ? explained(a.decides) : []));
  drawTable(a);
  drawNotes(a);
  drawCharts(a);
  $("played-title").replaceChildren("The ", word("policies"), " that played");
  $("played").replaceChildren(...a.policies.map((p, s) => el("li", {},
    el("b", {}, `seat ${s}${s === a.seat ? " (you)" : ""}`), el("code", {}, p))));
  const mode = a.mode === "declarer" ? "as declarer, no auction" : "through the whole auction";
  const rules = Object.entries(a.rules || {}).filter(([k]) => k !== "players").map(([k, v]) => `${k}=${v}`).join(", ");
  $("run-note").replaceChildren(`${a.game}, ${a.players} players, your `, word("seat"), ` ${a.seat}, `,
    word("dealer"), ` ${a.dealer}; ${a.samples.toLocaleString("en")} deals, seed ${a.seed}; played ${mode}.`
    + `${rules ? ` Rules: ${rules}.` : ""}`);
}

function drawTable(a) {
  const cols = columnsOf(a.bids, a.game);
  const twinOf = {};
  for (const g of a.identical || []) for (const p of g.plans.slice(1)) twinOf[p] = g.plans[0];
  // explicit roles: on a phone the rows are drawn as cards (advisor.css), which would
  // otherwise lose the table's meaning for a screen reader
  const head = el("tr", { role: "row" }, el("th", { scope: "col", role: "columnheader" }, word("plan")),
    cols.map((c) => el("th", { scope: "col", role: "columnheader" }, c.term ? word(c.term, c.head) : c.head)));
  const body = a.bids.map((r) => {
    const name = el("th", { scope: "row", role: "rowheader" }, word(r.bid));
    if (twinOf[r.bid]) name.append(el("span", { class: "ci same" }, `= ${twinOf[r.bid]}`));
    const tr = el("tr", { role: "row", "data-bid": r.bid, class: r.bid === a.recommended ? "best" : "" }, name);
    for (const c of cols) {
      const td = r[c.key] === null || r[c.key] === undefined ? el("td", {}, "–")
        : withCi(r[c.key], c.lo ? r[c.lo] : null, c.hi ? r[c.hi] : null, c.fmt);
      td.setAttribute("role", "cell");
      td.dataset.label = c.label || c.head;          // a phone's card names the unit too
      td.dataset.key = c.key;
      td.dataset.value = JSON.stringify(r[c.key] ?? null);
      if (c.lo) { td.dataset.low = JSON.stringify(r[c.lo] ?? null); td.dataset.high = JSON.stringify(r[c.hi] ?? null); }
      if (c.name === "bound" && r.bound_trump) {
        td.append(el("span", { class: "ci" }, `trump ${SUITS[r.bound_trump] || r.bound_trump}`));
      }
      tr.append(td);
    }
    return tr;
  });
  $("plans").setAttribute("role", "table");
  $("plans").setAttribute("aria-label", "every plan's numbers");
  $("plans").replaceChildren(el("thead", { role: "rowgroup" }, head), el("tbody", { role: "rowgroup" }, body));
  const note = [word("holds"), ": deals in which your side holds the contract; ", word("made"), ": of those; "
    + "us, them: points per hand for your side and an average opponent side; ", word("EV"),
    a.game === "pitch" ? ": money per hand in dollars. " : ": us minus them, per hand. ",
    "In brackets: ", word("95% interval", "95% intervals"), "."];
  if (cols.some((c) => c.name === "win")) {
    note.push(" ", word("chance to win", "Chance to win"), ": how often your side wins the game from the score after this hand.");
  }
  $("table-note").replaceChildren(...note);
}

function drawNotes(a) {
  $("same-notes").replaceChildren(...(a.identical || []).map((g) => el("li", {}, ...explained(`${g.note}.`))));
  const t = a.trump;
  const note = $("trump-note");
  note.hidden = !(a.game === "pepper" && t && (t.number || t.all) && (t.number || t.all) !== "-");
  if (note.hidden) return;
  const suit = (s) => (s && s !== "-" ? `${SUITS[s]} (${SUIT_NAMES[s]})` : "–");
  const main = t.number && t.number !== "-" ? t.number : t.all;
  const other = { C: "S", S: "C", D: "H", H: "D" }[main];
  note.replaceChildren("Trump you name when your side holds the contract: ", suit(t.number), " for a number bid, ",
    suit(t.all), " for ", word("Ndogo"), " or ", word("Kubwa"), `. With ${SUIT_NAMES[main]} trump the `, word("bowers"),
    ` are the jack of ${SUIT_NAMES[main]} (right) and the jack of ${SUIT_NAMES[other]} (left).`);
}

// charts: drawn at the width they are shown at, so that their words stay 12 px

function drawCharts(a) {
  const v = valueOf(a.game);
  drawChart($("chart"), a, {
    key: "ev", lo: "ev_low", hi: "ev_high", axis: v.axis, fmt: v.fmt, zero: true,
    best: a.decided_by === "p_win" ? null : a.recommended, label: "EV of each plan with its 95% interval",
  });
  const win = a.bids.some((r) => r.p_win !== undefined && r.p_win !== null);
  $("win-chart-part").hidden = !win;
  if (win) {
    drawChart($("win-chart"), a, {
      key: "p_win", lo: "p_win_low", hi: "p_win_high", axis: "chance to win the game", fmt: (x) => pct(x, 0),
      zero: false, best: a.recommended, label: "chance to win the game of each plan with its 95% interval", percent: true,
    });
  }
}

/** An SVG of each plan's value as a dot on its 95% interval, as wide as ``host``. */
function drawChart(host, a, o) {
  const rows = a.bids.filter((r) => r[o.key] !== null && r[o.key] !== undefined);
  const W = Math.max(260, Math.round(host.clientWidth || 680));
  const longest = Math.max(...rows.map((r) => r.bid.length));
  const left = Math.min(110, 18 + 8 * longest), right = 18, top = 10, rowH = 28;
  const H = top + rowH * rows.length + 40;
  const far = farRows(rows, o);
  const near = rows.filter((r) => !far.has(r));
  let lo = Math.min(...near.map((r) => r[o.lo] ?? r[o.key]));
  let hi = Math.max(...near.map((r) => r[o.hi] ?? r[o.key]));
  if (o.zero) { lo = Math.min(0, lo); hi = Math.max(0, hi); }
  const pad = (hi - lo || (o.percent ? 0.05 : 1)) * 0.06;
  let x0 = lo - pad, x1 = hi + pad;
  if (o.percent) { x0 = Math.max(0, x0); x1 = Math.min(1, x1); }
  const x = (v) => left + ((Math.min(x1, Math.max(x0, v)) - x0) / (x1 - x0)) * (W - left - right);
  const NS = "http://www.w3.org/2000/svg";
  const s = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const svg = s("svg", { class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": o.label });
  const bottom = top + rowH * rows.length;
  const most = Math.max(3, Math.floor((W - left - right) / 64));
  const digits = o.percent ? 0 : tickDigits(x0, x1);
  for (const t of ticks(x0, x1, most)) {
    svg.append(s("line", { class: "grid", x1: x(t), x2: x(t), y1: top, y2: bottom }));
    svg.append(s("text", { x: x(t), y: bottom + 16, "text-anchor": "middle" },
      o.percent ? pct(t, 0) : t === 0 ? "0" : o.fmt(t, digits)));
  }
  if (o.zero) svg.append(s("line", { class: "zero", x1: x(0), x2: x(0), y1: top - 4, y2: bottom }));
  svg.append(s("text", { class: "axis-label", x: (left + W - right) / 2, y: bottom + 33, "text-anchor": "middle" }, o.axis));
  rows.forEach((r, i) => {
    const y = top + rowH * i + rowH / 2;
    const best = r.bid === o.best;
    const g = s("g", { class: best ? "best" : "", "data-bid": r.bid });
    if (best) g.append(s("rect", { class: "band", x: 0, y: y - rowH / 2, width: W, height: rowH, rx: 6 }));
    g.append(s("text", { x: left - 10, y: y + 4, "text-anchor": "end", "font-weight": best ? 700 : 400 }, r.bid));
    const f = o.percent ? (v) => pct(v) : (v) => o.fmt(v);
    if (far.has(r)) {
      // off the scale: an arrow at the edge and its value, so that the close plans keep
      // the width (a moon at -5.30 would squeeze every other plan onto zero)
      const below = r[o.key] < x0;
      const edge = below ? left : W - right;
      g.classList.add("far");
      g.append(s("path", { class: "arrow", d: below ? `M${edge} ${y} l10 -6 v12 z` : `M${edge} ${y} l-10 -6 v12 z` }));
      g.append(s("text", { class: "far-value", x: below ? edge + 14 : edge - 14, y: y + 4,
        "text-anchor": below ? "start" : "end" }, `${f(r[o.key])}, off the scale`));
    } else {
      if (r[o.lo] !== null && r[o.lo] !== undefined) g.append(s("line", { class: "ci", x1: x(r[o.lo]), x2: x(r[o.hi]), y1: y, y2: y }));
      g.append(s("circle", { class: "dot", cx: x(r[o.key]), cy: y, r: 6 }));
    }
    g.append(s("title", {}, `${r.bid}: ${f(r[o.key])} [${f(r[o.lo])}, ${f(r[o.hi])}]`));
    svg.append(g);
  });
  host.replaceChildren(svg);
}

/** The rows drawn off the scale: one whose interval, far from all the others, would make
 *  the axis more than four times as wide as theirs (at most all but two rows). */
function farRows(rows, o) {
  const ends = (r) => [r[o.lo] ?? r[o.key], r[o.hi] ?? r[o.key]];
  const span = (rs) => {
    const v = rs.flatMap(ends).concat(o.zero ? [0] : []);
    return Math.max(...v) - Math.min(...v);
  };
  const far = new Set();
  let kept = rows.slice();
  while (kept.length > 2) {
    const whole = span(kept);
    const trial = kept.map((r) => [r, span(kept.filter((q) => q !== r))]).sort((a, b) => a[1] - b[1])[0];
    if (!(trial[1] > 0 && whole / trial[1] > 4)) break;
    far.add(trial[0]);
    kept = kept.filter((q) => q !== trial[0]);
  }
  return far;
}

/** Round values from ``a`` to ``b``, at most ``most`` of them and, when the axis is narrow,
 *  still two or more (a single "0" says nothing about the scale). */
function ticks(a, b, most = 8) {
  const span = b - a;
  const step = 10 ** Math.floor(Math.log10(span / 5));
  const steps = [0.5, 1, 2, 5, 10, 20, 50].map((m) => m * step);
  const at = (nice) => {
    const out = [];
    for (let t = Math.ceil(a / nice) * nice; t <= b + 1e-9; t += nice) out.push(Math.abs(t) < 1e-9 ? 0 : t);
    return out;
  };
  let i = steps.findIndex((st) => span / st <= most);
  if (i < 0) i = steps.length - 1;
  let out = at(steps[i]);
  while (out.length < 2 && i > 0) out = at(steps[--i]);
  return out;
}

function tickDigits(a, b) {
  const span = b - a;
  return span >= 5 ? 0 : span >= 0.5 ? 1 : span >= 0.05 ? 2 : 3;
}

// --- start: the inputs from the address --------------------------------------------------

function chooseGame(name, values = {}) {
  state.game = state.games[name];
  for (const b of document.querySelectorAll("#game-seg input")) b.checked = b.value === name;
  const g = state.game;
  const P = Number((values.players || [])[0]);
  options($("players"), g.players.map((p) => [p, `${p} players`]), g.players.includes(P) ? P : g.default_players);
  seats((values.dealer || ["0"])[0], (values.seat || [""])[0]);
  state.rules = new RulesEditor($("rules"), g, { preset: (values.preset || ["seed"])[0], sets: values.set || [], onChange: inputsChanged });
  state.policies = new PolicyEditor($("policies"), g, Number($("players").value), values.policy || [],
    { onChange: inputsChanged, seatName: (s) => `seat ${s}` });
  $("bound-line").hidden = !g.bound;
  for (const id of ["score-field", "games-field", "score-hint"]) $(id).hidden = !scored();
  planBoxes(values.plans ? new Set(values.plans[0].split(",").map((t) => t.trim())) : null);
  buildGrid();
  const hand = values.hand ? values.hand[0] : "";
  state.typed = !!hand;
  $("hand").value = hand;
  state.hand = [];
  state.serverErrors = {};
  handChanged({ fromText: true });
}

function restore(values) {
  for (const id of ["score", "samples", "seed", "games"]) if (values[id]) $(id).value = values[id][0];
  const on = (k) => values[k] && ON.includes(values[k][0].toLowerCase());
  $("declarer").checked = !!on("declarer");
  $("bound").checked = !!on("bound");
}

/** The "?" and the explanation of each of the page's own fields. */
function fieldHelps() {
  for (const [id, f] of Object.entries(FIELDS)) {
    const field = $(`${id}-field`);
    if (!field || !f.doc) continue;
    const help = fieldHelp(f.label, f.doc, `${id}-help`);
    const head = field.querySelector(".field-head") || field.querySelector("legend");
    head.append(help.button);
    field.append(help.doc);
    showWhileFocused(field, help);
    const input = id === "plans" ? null : $(id);
    if (input) input.setAttribute("aria-describedby", `${help.doc.id} ${id}-error`);
  }
}

/** The question as a link that runs it on open (``run=1``) when it is complete. */
function shareLink() {
  const url = new URL(location.pathname, location.href);
  url.search = queryOf(state.valid ? [...pairs(), ["run", "1"]] : pairs());
  return url.toString();
}

async function share() {
  const link = shareLink();
  const said = state.valid ? "Copied: the link opens this question and runs it."
    : "Copied: the link fills in the inputs; it will not run until the hand and the values are complete.";
  try {
    await navigator.clipboard.writeText(link);
    $("shared").replaceChildren(said);
  } catch (e) {
    const box = el("input", { type: "text", readonly: true, value: link, "aria-label": "the link to copy", class: "link-box" });
    $("shared").replaceChildren("Copy this link: ", box);
    box.select();
  }
}

async function start() {
  chrome("/");
  const [table, , lim] = await Promise.all([gameTable(), loadTerms(), limits()]);
  state.limits = lim;
  state.games = Object.fromEntries(Object.entries(table).filter(([, g]) => g.advise));
  const values = urlValues();
  const names = Object.keys(state.games);
  $("game-seg").replaceChildren(...names.map((n) => {
    const input = el("input", { type: "radio", name: "game", value: n, id: `game-${n}` });
    input.addEventListener("change", () => {
      $("answer").hidden = true;           // the other game's answer would read as this one's
      state.answer = null;
      chooseGame(n);
    });
    return el("label", { class: "seg-item", for: `game-${n}` }, input, state.games[n].title);
  }));
  fieldHelps();
  restore(values);
  const game = values.game && state.games[values.game[0]] ? values.game[0] : names[0];
  chooseGame(game, values);
  $("grid").addEventListener("keydown", gridKeys);
  $("hand").addEventListener("input", () => { state.typed = true; handChanged({ fromText: true }); });
  $("hand").addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.isComposing) return;
    e.preventDefault();
    if (state.valid) $("hand").value = state.hand.join(" ");     // as the deck writes it
    advise();
  });
  addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing) { e.preventDefault(); advise(); }
  });
  $("clear").addEventListener("click", () => { state.hand = []; state.typed = false; handChanged(); });
  $("players").addEventListener("change", () => {
    delete state.serverErrors.players;
    seats();
    state.policies.setPlayers(Number($("players").value));
    planBoxes();
    handChanged();
  });
  $("dealer").addEventListener("change", () => { delete state.serverErrors.dealer; seats(); inputsChanged(); });
  for (const id of ["seat", "declarer", "bound"]) {
    $(id).addEventListener("change", () => { delete state.serverErrors[id]; inputsChanged(); });
  }
  for (const id of ["score", "samples", "seed", "games"]) {
    $(id).addEventListener("input", () => { delete state.serverErrors[id]; inputsChanged(); });
  }
  // a rule or parameter typed in is checked as it is typed (its change event sets it)
  for (const id of ["rules", "policies"]) $(id).addEventListener("input", () => inputsChanged());
  $("advise").addEventListener("click", advise);
  $("cancel").addEventListener("click", cancel);
  $("share").addEventListener("click", share);
  let width = 0;
  new ResizeObserver(() => {
    const w = $("chart").clientWidth;
    if (state.answer && Math.abs(w - width) > 4) { width = w; drawCharts(state.answer); }
  }).observe($("chart"));
  // a shared link of a complete question with run=1 runs it on open
  if (values.run && ON.includes(values.run[0].toLowerCase())) {
    if (state.valid) advise();
    else $("estimate").textContent = "The link asks to run this question, but it is not complete: "
      + ($("estimate").textContent || "check the hand");
  }
}

start().catch((e) => { $("alert").textContent = plainError(e.message, LABELS); });
