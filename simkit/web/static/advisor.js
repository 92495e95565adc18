// The advisor: a hand clicked or typed, every CLI option of `simkit advise`, the
// answer as a table, a chart and the recommendation; the address holds every input.

import {
  SUITS, SUIT_NAMES, api, card, cardParts, chrome, el, later, pct, queryOf, replaceUrl,
  runJob, signed, withCi,
} from "./common.js";
import { PolicyEditor, RulesEditor, gameTable, urlValues } from "./forms.js";

const $ = (id) => document.getElementById(id);
const state = {
  games: null, game: null, hand: [], rules: null, policies: null, job: null, typed: false,
  estimate: null, lastPairs: null,
};

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

/** The hand read from text: ``{cards, error}``, the error one sentence naming the card or count. */
function readHand(text) {
  const tokens = text.replace(/,/g, " ").split(/\s+/).filter(Boolean);
  const deck = deckCards();
  const cards = [];
  for (const t of tokens) {
    const c = canonical(t);
    if (c === null) {
      return { cards, error: `${t} is not a card: write a rank (2-10, J, Q, K, A) and a suit (C, D, H, S), e.g. JH or 10S` };
    }
    if (!deck.has(c)) return { cards, error: `${t} is not in ${deckText()}` };
    if (cards.includes(c)) return { cards, error: `${c} is in the hand twice: each card may appear once` };
    cards.push(c);
  }
  return { cards, error: null };
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
  $("hand").setAttribute("aria-invalid", error ? "true" : "false");
  const valid = !read.error && !counted;
  $("advise").dataset.invalid = valid ? "0" : "1";
  $("advise").disabled = !valid || !!state.job;
  const left = handSize() - state.hand.length;
  $("count-hint").textContent = left > 0 ? `${state.hand.length} of ${handSize()} cards: pick ${left} more`
    : left === 0 ? `${handSize()} cards: ready` : "";
  drawFan();
  drawGrid();
  inputsChanged();
}

function drawFan() {
  const fan = $("fan");
  if (!state.hand.length) {
    fan.replaceChildren(el("span", { class: "empty" }, "Pick your cards below"));
    return;
  }
  fan.replaceChildren(...state.hand.map((c) => {
    const b = card(c, { size: "lg", tag: "button" });
    b.title = `${b.title}: click to drop it`;
    b.addEventListener("click", () => toggle(c));
    return b;
  }));
}

function drawGrid() {
  const grid = $("grid");
  grid.replaceChildren(...state.game.deck.map((row) => {
    const suit = row[0].slice(-1);
    const line = el("div", { class: "row", role: "group", "aria-label": SUIT_NAMES[suit] },
      el("span", { class: "suit" + ("DH".includes(suit) ? " red" : ""), "aria-hidden": "true" }, SUITS[suit]));
    for (const c of row) {
      const picked = state.hand.includes(c);
      // a short deck (Pepper's 24 cards) gets full-size cards; 52 cards fit as small ones
      const b = card(c, { size: row.length > 8 ? "sm" : "", tag: "button" });
      b.classList.toggle("picked", picked);
      b.setAttribute("aria-pressed", String(picked));
      b.addEventListener("click", () => toggle(c));
      line.append(b);
    }
    return line;
  }));
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
    const box = el("input", { type: "checkbox", value: n });
    box.checked = keep === null ? n !== "policy" : (keep.size ? keep.has(n) : n !== "policy");
    box.addEventListener("change", inputsChanged);
    return el("label", { class: "check plan" }, box, n === "policy" ? "policy (the seat's own bidding)" : n);
  }));
}

/** The plans option: null for every plan (the boxes as they start), else the checked names. */
function chosenPlans() {
  const boxes = Array.from($("plan-boxes").querySelectorAll("input"));
  const all = boxes.every((b) => b.checked === (b.value !== "policy"));
  return all ? null : boxes.filter((b) => b.checked).map((b) => b.value).join(",");
}

/** The CLI's options of the inputs, in a fixed order (the address and the API's query). */
function pairs() {
  const g = state.game;
  const out = [["game", g.name], ["hand", state.hand.join(" ")], ["players", $("players").value]];
  if ($("seat").value !== "") out.push(["seat", $("seat").value]);
  if ($("dealer").value !== "0") out.push(["dealer", $("dealer").value]);
  out.push(...state.rules.pairs(), ...state.policies.pairs());
  const score = $("score").value.trim();
  if (score) out.push(["score", score]);
  out.push(["samples", $("samples").value.trim()], ["seed", $("seed").value.trim()]);
  if (score && $("games").value.trim() !== "10000") out.push(["games", $("games").value.trim()]);
  const plans = chosenPlans();
  if (plans !== null) out.push(["plans", plans]);
  if ($("declarer").checked) out.push(["declarer", "1"]);
  if (g.bound && $("bound").checked) out.push(["bound", "1"]);
  return out;
}

function inputsChanged() {
  if (!state.rules) return;
  const p = pairs();
  replaceUrl(p);
  const n = state.rules.count();
  $("rules-sub").textContent = state.rules.preset === "seed" && !n ? "the rule book"
    : `${state.rules.preset}${n ? `, ${n} changed` : ""}`;
  const pol = state.policies.pairs();
  $("policy-sub").textContent = pol.length ? pol.map((x) => x[1]).join(" · ") : state.game.default_policy;
  $("run-sub").textContent = `${Number($("samples").value || 0).toLocaleString("en")} deals, seed ${$("seed").value}`;
  estimateSoon();
}

const estimateSoon = later(async () => {
  const box = $("estimate");
  if ($("advise").dataset.invalid === "1" || state.job) { box.textContent = ""; return; }
  const p = pairs();
  const key = queryOf(p);
  state.lastPairs = key;
  box.textContent = "expected time: estimating…";
  try {
    const e = await api(`/api/estimate?${queryOf([["command", "advise"], ...p])}`);
    if (state.lastPairs === key) box.textContent = `expected time: ${e.text}`;
  } catch (err) {
    if (state.lastPairs !== key) return;
    box.textContent = "";
    $("alert").textContent = err.message;
  }
}, 350);

// --- running ----------------------------------------------------------------------------

function advise() {
  return runJob(state, "advise", pairs(), {
    button: $("advise"), cancel: $("cancel"), progress: $("progress"), bar: $("bar"),
    percent: $("percent"), eta: $("eta"), estimate: $("estimate"), alert: $("alert"),
  }, showAnswer);
}

function cancel() {
  if (state.job) state.job.cancel();
}

// --- the answer -------------------------------------------------------------------------

const COLUMNS = {
  holds: { head: "holds", title: "deals in which your side holds the contract", key: "p_contract", lo: "contract_low", hi: "contract_high", fmt: (v) => pct(v) },
  made: { head: "made", title: "of those, how often it is made", key: "p_make", lo: "ci_low", hi: "ci_high", fmt: (v) => pct(v) },
  us: { head: "us", title: "points per hand for your side", key: "ev_us", lo: "ev_us_low", hi: "ev_us_high", fmt: (v) => signed(v) },
  them: { head: "them", title: "points per hand for an average opponent side", key: "ev_them", lo: "ev_them_low", hi: "ev_them_high", fmt: (v) => signed(v) },
  ev: { head: "EV", title: "us minus them, per hand", key: "ev", lo: "ev_low", hi: "ev_high", fmt: (v) => signed(v) },
  points: { head: "points", title: "points per hand", key: "points", fmt: (v) => signed(v) },
  win: { head: "P(win)", title: "chance to win the game from the score", key: "p_win", fmt: (v) => pct(v) },
  bound: { head: "bound", title: "made with every card visible, the best single trump", key: "p_make_bound", lo: "bound_low", hi: "bound_high", fmt: (v) => pct(v) },
};

/** What a plan's value is in, per game, with the digits the CLI's table prints it with. */
const VALUE = {
  pepper: { digits: 2, head: "EV", axis: "EV per hand, points (us minus them)" },
  pitch: { digits: 3, head: "EV ($)", axis: "EV per hand, dollars" },
};

function valueOf(game) {
  return VALUE[game] || { digits: 2, head: "EV", axis: "EV per hand" };
}

function columnsOf(rows, game) {
  const has = (k) => rows.some((r) => k in r);
  const v = valueOf(game);
  return Object.entries(COLUMNS)
    .filter(([name, c]) => has(c.key) && !(name === "points" && has("ev_us")))   // Pitch: points = us
    .map(([name, c]) => (name === "ev" ? { name, ...c, head: v.head, fmt: (x) => signed(x, v.digits) } : { name, ...c }));
}

function showAnswer(a) {
  if (a.value) VALUE[a.game] = { digits: a.value.digits, head: a.value.head, axis: `EV per hand, ${a.value.unit}` };
  $("answer").hidden = false;
  $("recommended").textContent = a.recommended;
  const close = a.close ?? /too close to call/.test(a.reason || "");
  const badge = $("close-badge");
  badge.textContent = close ? "too close to call" : "clear choice";
  badge.className = "badge " + (close ? "close" : "clear");
  const other = a.close_to ? ` and ${a.close_to}` : " and the next best plan";
  $("headline").textContent = close ? `${a.recommended}, by a nose: the 95% intervals of ${a.recommended}${other} overlap.`
    : a.recommended === "pass" ? "Pass." : `Bid ${a.recommended}.`;
  $("reason").textContent = a.reason ? `${a.recommended}: ${a.reason}` : "";
  drawTable(a);
  drawChart(a);
  $("played").replaceChildren(...a.policies.map((p, s) => el("li", {},
    el("b", {}, `seat ${s}${s === a.seat ? " (you)" : ""}`), el("code", {}, p))));
  const mode = a.mode === "declarer" ? "as declarer, no auction" : "through the whole auction";
  const rules = Object.entries(a.rules || {}).filter(([k]) => k !== "players").map(([k, v]) => `${k}=${v}`).join(", ");
  $("run-note").textContent = `${a.game}, ${a.players} players, seat ${a.seat}, dealer ${a.dealer}; `
    + `${a.samples.toLocaleString("en")} deals, seed ${a.seed}; played ${mode}.${rules ? ` Rules: ${rules}.` : ""}`;
}

function drawTable(a) {
  const cols = columnsOf(a.bids, a.game);
  const head = el("tr", {}, el("th", { scope: "col" }, "plan"),
    cols.map((c) => el("th", { scope: "col", title: c.title }, c.head)));
  const body = a.bids.map((r) => {
    const tr = el("tr", { "data-bid": r.bid, class: r.bid === a.recommended ? "best" : "" }, el("td", {}, r.bid));
    for (const c of cols) {
      const td = r[c.key] === null || r[c.key] === undefined ? el("td", {}, "–")
        : withCi(r[c.key], c.lo ? r[c.lo] : null, c.hi ? r[c.hi] : null, c.fmt);
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
  $("plans").replaceChildren(el("thead", {}, head), el("tbody", {}, body));
  $("table-note").textContent = "holds: deals in which your side holds the contract; made: of those; "
    + "us, them: points per hand for your side and an average opponent side; "
    + (a.game === "pitch" ? "EV: money per hand in dollars. " : "EV: us minus them. ")
    + "In brackets: 95% intervals.";
}

/** An SVG of each plan's EV as a dot on its 95% interval. */
function drawChart(a) {
  const rows = a.bids.filter((r) => r.ev !== null && r.ev !== undefined);
  const W = 680, left = 78, right = 24, top = 12, rowH = 30, H = top + rowH * rows.length + 34;
  const lo = Math.min(0, ...rows.map((r) => r.ev_low ?? r.ev));
  const hi = Math.max(0, ...rows.map((r) => r.ev_high ?? r.ev));
  const pad = (hi - lo || 1) * 0.06;
  const x0 = lo - pad, x1 = hi + pad;
  const x = (v) => left + ((v - x0) / (x1 - x0)) * (W - left - right);
  const NS = "http://www.w3.org/2000/svg";
  const s = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "EV of each plan with its 95% interval" });
  const bottom = top + rowH * rows.length;
  for (const t of ticks(x0, x1)) {
    svg.append(s("line", { class: "grid", x1: x(t), x2: x(t), y1: top, y2: bottom }));
    svg.append(s("text", { x: x(t), y: bottom + 16, "text-anchor": "middle" }, t === 0 ? "0" : signed(t, tickDigits(x0, x1))));
  }
  svg.append(s("line", { class: "zero", x1: x(0), x2: x(0), y1: top - 4, y2: bottom }));
  svg.append(s("text", { x: (left + W - right) / 2, y: bottom + 31, "text-anchor": "middle", fill: "#56625b" }, valueOf(a.game).axis));
  rows.forEach((r, i) => {
    const y = top + rowH * i + rowH / 2;
    const g = s("g", { class: r.bid === a.recommended ? "best" : "", "data-bid": r.bid });
    if (r.bid === a.recommended) g.append(s("rect", { class: "band", x: 0, y: y - rowH / 2, width: W, height: rowH, rx: 6 }));
    g.append(s("text", { x: left - 10, y: y + 4, "text-anchor": "end", "font-weight": r.bid === a.recommended ? 700 : 400 }, r.bid));
    if (r.ev_low !== null && r.ev_low !== undefined) g.append(s("line", { class: "ci", x1: x(r.ev_low), x2: x(r.ev_high), y1: y, y2: y }));
    g.append(s("circle", { class: "dot", cx: x(r.ev), cy: y, r: 6 }));
    const d = valueOf(a.game).digits;
    g.append(s("title", {}, `${r.bid}: EV ${signed(r.ev, d)} [${signed(r.ev_low, d)}, ${signed(r.ev_high, d)}]`));
    svg.append(g);
  });
  $("chart").replaceChildren(svg);
}

function ticks(a, b) {
  const span = b - a;
  const step = 10 ** Math.floor(Math.log10(span / 5));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((st) => span / st <= 8);
  const out = [];
  for (let t = Math.ceil(a / nice) * nice; t <= b + 1e-9; t += nice) out.push(Math.abs(t) < 1e-9 ? 0 : t);
  return out;
}

function tickDigits(a, b) {
  const span = b - a;
  return span >= 5 ? 0 : span >= 0.5 ? 1 : 2;
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
  planBoxes(values.plans ? new Set(values.plans[0].split(",").map((t) => t.trim())) : null);
  const hand = values.hand ? values.hand[0] : "";
  state.typed = !!hand;
  $("hand").value = hand;
  state.hand = [];
  handChanged({ fromText: true });
}

function restore(values) {
  for (const id of ["score", "samples", "seed", "games"]) if (values[id]) $(id).value = values[id][0];
  const on = (k) => values[k] && ["1", "true", "on", "yes"].includes(values[k][0].toLowerCase());
  $("declarer").checked = !!on("declarer");
  $("bound").checked = !!on("bound");
}

async function start() {
  chrome("/");
  state.games = Object.fromEntries(Object.entries(await gameTable()).filter(([, g]) => g.advise));
  const values = urlValues();
  const names = Object.keys(state.games);
  $("game-seg").replaceChildren(...names.map((n) => {
    const input = el("input", { type: "radio", name: "game", value: n, id: `game-${n}` });
    input.addEventListener("change", () => chooseGame(n));
    return el("label", { class: "seg-item", for: `game-${n}` }, input, state.games[n].title);
  }));
  restore(values);
  const game = values.game && state.games[values.game[0]] ? values.game[0] : names[0];
  chooseGame(game, values);
  $("hand").addEventListener("input", () => { state.typed = true; handChanged({ fromText: true }); });
  $("clear").addEventListener("click", () => { state.hand = []; state.typed = false; handChanged(); });
  $("players").addEventListener("change", () => {
    seats();
    state.policies.setPlayers(Number($("players").value));
    planBoxes();
    handChanged();
  });
  $("dealer").addEventListener("change", () => { seats(); inputsChanged(); });
  for (const id of ["seat", "declarer", "bound"]) $(id).addEventListener("change", inputsChanged);
  for (const id of ["score", "samples", "seed", "games"]) $(id).addEventListener("input", inputsChanged);
  $("advise").addEventListener("click", advise);
  $("cancel").addEventListener("click", cancel);
  $("share").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("shared").textContent = " copied"; } catch (e) { $("shared").textContent = ` ${location.href}`; }
  });
}

start().catch((e) => { $("alert").textContent = e.message; });
