// What every page shares: the top bar and its health light, calls to the API,
// cards drawn as cards, number formats, the inputs of rules and policies, and jobs.

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_OF_SYMBOL = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack" };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

// --- the server --------------------------------------------------------------------------

/** JSON from the API; a refusal throws an Error whose message is the server's sentence. */
export async function api(path, options = {}) {
  let resp;
  try {
    resp = await fetch(path, options);
  } catch (e) {
    throw new Error("the simkit server does not answer: is 'simkit serve' still running?");
  }
  let body = null;
  try { body = await resp.json(); } catch (e) { body = null; }
  if (!resp.ok) {
    throw new Error(body && body.error ? body.error : `the server answered HTTP ${resp.status}`);
  }
  return body;
}

let gamesCache = null;
/** games_info(): per game its players, deck, presets, rules, policies, plans. */
export function gamesInfo() {
  if (!gamesCache) gamesCache = api("/api/games");
  return gamesCache;
}

/** The query string of (key, value) pairs, spaces as '+'. */
export function queryOf(pairs) {
  return new URLSearchParams(pairs).toString();
}

/** Keep the address bar on this page's inputs (shareable, no new history entry). */
export function replaceUrl(pairs) {
  const q = queryOf(pairs);
  const url = location.pathname + (q ? "?" + q : "");
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
}

// --- the top bar -------------------------------------------------------------------------

const LINKS = [["/", "Advisor"], ["/hand", "Hand viewer"], ["/compare", "Compare"],
  ["/reports/", "Reports"], ["/docs/", "Docs"]];

/** The top bar (links to every page and the reports) and the warming-up light. */
export function chrome(active) {
  const nav = document.querySelector("nav.top");
  nav.innerHTML = `<a class="brand" href="/">simkit<span class="suits" aria-hidden="true">♠<span class="r">♥</span>♣<span class="r">♦</span></span></a>`;
  for (const [href, text] of LINKS) {
    const a = el("a", { href }, text);
    if (href === active) a.setAttribute("aria-current", "page");
    nav.append(a);
  }
  const status = el("span", { class: "status", id: "health" });
  status.append(el("span", { class: "dot" }), el("span", { class: "text" }, "…"));
  nav.append(status);
  const banner = el("div", { class: "banner", id: "warming", role: "status", hidden: true });
  nav.after(banner);
  watchHealth(status, banner);
}

async function watchHealth(status, banner) {
  let health = { status: "offline" };
  try { health = await api("/api/health"); } catch (e) { health = { status: "offline" }; }
  const state = health.status;
  status.classList.toggle("warming", state !== "ready");
  status.querySelector(".text").textContent = state === "ready" ? "ready"
    : state === "warming" ? "warming up" : "server not answering";
  banner.hidden = state === "ready";
  banner.textContent = state === "warming"
    ? `Warming up: simkit is compiling its kernels${health.detail ? ` (${health.detail})` : ""}, `
      + "a few minutes the first time after an install. Everything works meanwhile; the first runs are slower."
    : "The simkit server does not answer: start it again with 'simkit serve'.";
  if (state !== "ready") setTimeout(() => watchHealth(status, banner), 2000);
}

// --- elements ----------------------------------------------------------------------------

/** An element with attributes and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// --- cards -------------------------------------------------------------------------------

/** A card text as records write it ("JH", "10D", Burraco's "4C'" and "JK''",
 *  Shiesta's bare ranks "9", a hidden card "?"): its parts. */
export function cardParts(text) {
  let t = String(text).trim();
  const copies = (t.match(/'+$/) || [""])[0].length;
  t = t.replace(/'+$/, "");
  const up = t.toUpperCase();
  if (up === "JK" || up === "JOKER") return { joker: true, copies, text: t };
  if (/^[?X#*]+$/.test(up) || up === "") return { back: true, copies, text: t };
  let suit = up.slice(-1);
  if (SUIT_OF_SYMBOL[suit]) suit = SUIT_OF_SYMBOL[suit];
  let rank = up.slice(0, -1);
  if (!SUITS[suit] || !rank) return { rank: up === "T" ? "10" : up, copies, text: t };
  if (rank === "T") rank = "10";
  return { rank, suit, copies, text: t };
}

/** The card's name for screen readers and tooltips, e.g. "jack of hearts". */
export function cardName(p) {
  if (p.joker) return "joker";
  if (p.back) return "a face-down card";
  const r = RANK_NAMES[p.rank] || p.rank;
  return p.suit ? `${r} of ${SUIT_NAMES[p.suit]}` : r;
}

/** A card drawn as a card; ``size``: "", "sm", "xs" or "lg"; ``tag``: "span" or "button". */
export function card(text, { size = "", tag = "span", mark = false } = {}) {
  const p = cardParts(text);
  const cls = ["card", size];
  if (mark) cls.push("mark");
  const e = el(tag, { "data-card": String(text).trim(), title: cardName(p) });
  if (tag === "button") e.type = "button";
  if (p.back) {
    cls.push("back");
  } else if (p.joker) {
    cls.push("joker");
    e.append(el("span", { class: "ix" }, "JOK"), el("span", { class: "pip" }, "★"));
  } else if (!p.suit) {
    cls.push("rank-only");
    e.append(el("span", { class: "ix" }, p.rank), el("span", { class: "pip" }, p.rank),
      el("span", { class: "ix b" }, p.rank));
  } else {
    const s = SUITS[p.suit];
    if (p.suit === "D" || p.suit === "H") cls.push("red");
    const face = "JQK".includes(p.rank);
    if (face) cls.push("face");
    const ix = () => el("span", { class: "ix" }, el("span", {}, p.rank), el("span", { class: "s" }, s));
    const b = ix();
    b.classList.add("b");
    e.append(ix(), el("span", { class: "pip" }, face ? p.rank + s : s), b);
  }
  if (p.copies) e.append(el("span", { class: "copy", title: `copy mark ${"'".repeat(p.copies)}` }, "'".repeat(p.copies)));
  e.className = cls.filter(Boolean).join(" ");
  // the drawing is for the eye; a button's name is its text ("jack of hearts", its visible
  // text and its accessible name the same), a card in a row is an image of that name
  if (tag === "button") {
    for (const c of e.children) c.setAttribute("aria-hidden", "true");
    e.append(el("span", { class: "sr-only" }, cardName(p)));
  } else {
    e.setAttribute("role", "img");
    e.setAttribute("aria-label", cardName(p));
  }
  return e;
}

/** A row of cards. */
export function cardRow(texts, opts = {}) {
  return el("span", { class: "cards" }, (texts || []).map((t) => card(t, opts)));
}

/** Rank order for sorting a hand: suit, then rank, as the grid shows them. */
export function cardOrder(text) {
  const p = cardParts(text);
  return ("CDHS".indexOf(p.suit) + 1) * 100 + RANKS.indexOf(p.rank);
}

// --- numbers -----------------------------------------------------------------------------

/** A chance as a percentage with one decimal ("-" when there is none). */
export function pct(p, digits = 1) {
  if (p === null || p === undefined || Number.isNaN(p)) return "–";
  return `${(100 * p).toFixed(digits)}%`;
}

/** A signed number ("+1.23"), as Python's "{:+.2f}" writes it. */
export function signed(v, digits = 2) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const t = v.toFixed(digits);
  return t.startsWith("-") ? t : "+" + t;
}

/** Money as every page writes it: a sign, a dollar sign and cents ("+$0.09", "-$1.20";
 *  ``digits`` 3 where a tenth of a cent matters), "$0.00" when it rounds to nothing:
 *  the same as simkit.advice.money. */
export function money(v, digits = 2) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const t = Math.abs(v).toFixed(digits);
  if (Number(t) === 0) return `$${t}`;
  return `${v < 0 ? "-" : "+"}$${t}`;
}

/** A record's amounts of money ("+$0.1 +$0 -$1.0333") in the pages' one format: at
 *  least the cents, and every digit the record states ("+$0.10 +$0.00 -$1.0333"). */
export function moneyText(text) {
  return String(text).replace(/([+-]?)\$([0-9]+(?:\.[0-9]+)?)/g, (all, sign, amount) => {
    const [whole, frac = ""] = amount.split(".");
    const cents = frac.padEnd(2, "0");
    const zero = /^0*$/.test(whole + frac);
    return `${zero ? "" : sign || "+"}$${whole}.${cents}`;
  });
}

/** A count as people write it ("100000", "100,000", "100 000", "100_000") in digits
 *  alone, or null when it is not one. */
export function countDigits(text) {
  const t = String(text).trim().replace(/^\+/, "");
  if (/^[0-9]+$/.test(t)) return t;
  if (/^[0-9]{1,3}([,_ \u202f\u00a0][0-9]{3})+$/.test(t)) return t.replace(/[^0-9]/g, "");
  return null;
}

/** A p-value as people read them. */
export function pvalue(p) {
  if (p === null || p === undefined) return "–";
  if (p < 0.0001) return "< 0.0001";
  return p.toFixed(p < 0.01 ? 4 : 3);
}

/** A value with its interval in a table cell: value and "[lo, hi]" in grey. */
export function withCi(value, lo, hi, fmt) {
  const cell = el("td", {});
  cell.append(el("span", { class: "v" }, fmt(value)));
  if (lo !== null && lo !== undefined && hi !== null && hi !== undefined) {
    cell.append(el("span", { class: "ci" }, `[${fmt(lo)}, ${fmt(hi)}]`));
  }
  return cell;
}

// --- jobs ---------------------------------------------------------------------------------

/** A worker that asks about the job every second on its own: a background tab's timers
 *  may be slowed to once a minute, and the server stops a job nobody asks about. */
function keepAlive(id) {
  const code = `setInterval(() => fetch(${JSON.stringify(`/api/jobs/${id}`)}).catch(() => {}), 1000);`;
  try {
    return new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  } catch (e) {
    return null;
  }
}

/** Run a command as a job: ``onProgress(fraction)`` as it goes; ``done`` resolves with the
 *  result or rejects with the server's sentence; ``cancel()`` stops it at once. Leaving the
 *  page stops it too. */
export function startJob(command, pairs, onProgress) {
  let id = null;
  let stopped = false;
  let timer = null;
  let worker = null;
  const job = {};
  const end = () => {
    stopped = true;
    clearTimeout(timer);
    if (worker) worker.terminate();
    removeEventListener("pagehide", leave);
  };
  const leave = () => {
    if (id) fetch(`/api/jobs/${id}`, { method: "DELETE", keepalive: true }).catch(() => {});
  };
  job.done = new Promise((resolve, reject) => {
    const finish = (fn, value) => { end(); fn(value); };
    const poll = async () => {
      if (stopped) return;
      try {
        const s = await api(`/api/jobs/${id}`);
        if (stopped) return;
        onProgress(s.progress || 0);
        if (s.status === "done") finish(resolve, s.result);
        else if (s.status === "failed") finish(reject, new Error(s.error));
        else if (s.status === "cancelled") finish(reject, Object.assign(new Error("the run was stopped"), { cancelled: true }));
        else timer = setTimeout(poll, 250);
      } catch (e) { if (!stopped) finish(reject, e); }
    };
    job.cancel = () => {
      if (stopped) return;
      leave();
      finish(reject, Object.assign(new Error("cancelled"), { cancelled: true }));
    };
    api(`/api/jobs?${queryOf([["command", command], ...pairs])}`, { method: "POST" })
      .then((r) => {
        id = r.id;
        if (stopped) { leave(); return; }
        worker = keepAlive(id);
        addEventListener("pagehide", leave);
        poll();
      })
      .catch((e) => finish(reject, e));
  });
  return job;
}

/** The run bar's parts: the progress bar, the percentage (a tenth of a percent, so that it
 *  moves every second even on long runs), the time so far and left, the buttons. */
export function runBar({ button, cancel, progress, bar, percent, eta }) {
  let started = 0;
  return {
    running(on) {
      button.disabled = on || button.dataset.invalid === "1";
      cancel.hidden = !on;
      progress.hidden = !on;
      started = performance.now();
      if (on) this.show(0);
    },
    show(f) {
      const p = Math.max(0, Math.min(1, f));
      bar.style.width = `${(100 * p).toFixed(1)}%`;
      bar.parentElement.setAttribute("aria-valuenow", (100 * p).toFixed(1));
      percent.textContent = `${(100 * p).toFixed(1)}%`;
      if (!eta) return;
      const took = (performance.now() - started) / 1000;
      const left = p > 0.01 && took > 2 ? took * (1 - p) / p : null;
      eta.textContent = `${clock(took)}${left === null ? "" : `, about ${clock(left)} left`}`;
    },
  };
}

/** A page's run of ``command``: the run bar and Cancel of ``els`` (``runBar``'s parts),
 *  "running…", "done" or "cancelled" in ``els.estimate``, the error in ``els.alert``
 *  (or to ``els.onError(error)`` first, which returns true when it showed it itself, e.g.
 *  on the field it names), the answer to ``onDone``; ``state.job`` holds the job while it
 *  runs (for Cancel). */
export async function runJob(state, command, pairs, els, onDone) {
  const r = runBar(els);
  els.alert.textContent = "";
  r.running(true);
  els.estimate.textContent = "running…";
  const job = startJob(command, pairs, (f) => r.show(f));
  state.job = job;
  try {
    onDone(await job.done);
    els.estimate.textContent = "done";
  } catch (e) {
    els.estimate.textContent = e.cancelled ? "cancelled" : "";
    if (!e.cancelled && !(els.onError && els.onError(e))) els.alert.textContent = plainError(e.message);
  } finally {
    if (state.job === job) state.job = null;
    r.running(false);
  }
}

// --- errors in the page's words ----------------------------------------------------------

/** The option a server's sentence is about ("argument --samples: ...", "bad --score ...",
 *  "option 'samples' ...", "rule 'target'", "parameter 'aggression'"): ``{option, key}``
 *  (``key``: the rule or parameter named, if any), or null. */
export function optionOfError(message) {
  const m = String(message);
  const rule = m.match(/\brule '([a-z_0-9]+)'/) || m.match(/\bparameter '([a-z_0-9]+)'/);
  if (rule) return { option: /\brule '/.test(m) ? "set" : "policy", key: rule[1] };
  const opt = m.match(/(?:^|[\s(])--([a-z][a-z-]*)\b/) || m.match(/\boption '([a-z][a-z-]*)'/)
    || m.match(/^bad ([a-z][a-z-]*) /);
  return opt ? { option: opt[1], key: null } : null;
}

/** A server's sentence in the page's words: no command-line usage hints, no rule-book
 *  section numbers, ``--samples`` written as the field's ``labels`` name it. */
export function plainError(message, labels = {}) {
  let m = String(message)
    .replace(/\s*\(see '[^']*--help'\)/g, "")
    .replace(/\s*\((?:see )?seeds\/[^)]*\)/g, "")
    .replace(/^argument (--[a-z-]+): /, "$1: ")
    .replace(/, e\.g\. --[a-z-]+=\S+\)/g, ")");
  m = m.replace(/(?:^|(?<=[\s(]))--([a-z][a-z-]*)/g, (all, name) => labels[name] || name.replaceAll("-", " "));
  return m;
}

// --- the server's bounds ---------------------------------------------------------------

/** The largest counts the server takes, ``{samples, games, hands}`` (numbers): from
 *  /api/limits when the server has it, else the bounds simkit has always had. */
let limitsCache = null;
export function limits() {
  const fallback = { samples: 1e8, games: 1e12, hands: 1e12 };
  if (!limitsCache) {
    limitsCache = fetch("/api/limits").then((r) => (r.ok ? r.json() : null)).catch(() => null)
      .then((body) => ({ ...fallback, ...readLimits(body) }));
  }
  return limitsCache;
}

/** The counts of a limits answer, whatever its nesting ({advise: {samples: N}},
 *  {samples: {max: N}}, {max_samples: N}...). */
function readLimits(body) {
  const out = {};
  const visit = (o, inAdvise) => {
    if (!o || typeof o !== "object") return;
    for (const [k, v] of Object.entries(o)) {
      const name = k.replace(/^max_|_max$/g, "");
      const n = typeof v === "number" ? v : v && typeof v === "object" && typeof v.max === "number" ? v.max : null;
      if (n !== null && ["samples", "games", "hands"].includes(name) && (inAdvise || !(name in out))) out[name] = n;
      else if (v && typeof v === "object") visit(v, inAdvise || k === "advise");
    }
  };
  visit(body, false);
  return out;
}

/** "1 deal", "2 deals": a count with its unit, singular or plural. */
export function counted(n, unit) {
  const one = unit.endsWith("s") ? unit.slice(0, -1) : unit;
  return `${n.toLocaleString("en")} ${n === 1 ? one : unit}`;
}

/** A count as typed ("100000" or "100,000"), checked: ``{value}`` (a number) or
 *  ``{error}`` in the page's words. */
export function checkCount(text, { label, unit, most = Infinity, least = 1, example = "1000" }) {
  const t = String(text).trim();
  const shown = Number(example).toLocaleString("en");
  if (t === "") return { error: `${label}: give the number of ${unit}, e.g. ${shown}` };
  if (/^[-−][0-9][0-9,]*$/.test(t)) {
    return { error: `${label}: ${t.replace("-", "−")} is below ${least}: give ${counted(least, unit)} or more, e.g. ${shown}` };
  }
  const digits = countDigits(t);
  if (digits === null) {
    return { error: `${label}: '${t}' is not a whole number: write the number of ${unit} in digits, e.g. ${shown}` };
  }
  const n = Number(digits);
  if (n < least) return { error: `${label}: at least ${counted(least, unit)}` };
  if (n > most) return { error: `${label}: at most ${counted(most, unit)}, the most the server takes` };
  return { value: n };
}

/** Seconds as "42 s" or "3 min 5 s". */
export function clock(s) {
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

/** Debounce: ``fn`` once, ``ms`` after the last call. */
export function later(fn, ms) {
  let t = null;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}
