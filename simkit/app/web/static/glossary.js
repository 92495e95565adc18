// Game terms explained where they appear: `term("Kubwa", "pepper")` is a button that
// shows the word's plain-words definition (from /api/glossary, the one glossary the
// package keeps: simkit/app/glossary.py) when it is clicked, tapped or activated from the
// keyboard, and hides it again with Escape, a second press or a click elsewhere.
// Hover alone never shows it, so a phone and a keyboard see the same as a mouse.

import { api, el } from "./common.js";

let terms = null;       // a promise of the glossary's terms
let open = null;        // the definition shown, if any: {button, box}

/** The glossary's terms (fetched once per page). */
export function glossary() {
  if (!terms) terms = api("/api/glossary").then((g) => g.terms);
  return terms;
}

function matches(t, word, game) {
  if (t.games.length && game && !t.games.includes(game)) return false;
  const w = word.trim().toLowerCase();
  return [t.key, t.word.toLowerCase(), ...t.aliases.map((a) => a.toLowerCase())].includes(w);
}

/** The term for ``word`` in ``game`` (or every game), or null. */
export async function lookup(word, game = null) {
  return (await glossary()).find((t) => matches(t, word, game)) || null;
}

function close() {
  if (!open) return;
  open.button.setAttribute("aria-expanded", "false");
  open.box.remove();
  open = null;
}

addEventListener("keydown", (e) => {
  if (e.key === "Escape" && open) {
    const b = open.button;
    close();
    b.focus();
  }
});
addEventListener("click", (e) => {
  if (open && !open.box.contains(e.target) && !open.button.contains(e.target)) close();
});

/** Where a term comes from, as links a reader can follow: the rule book's section of this
 *  game (the documentation site), the command reference or the glossary's entry; never a
 *  placeholder or a source file's path. */
function source(t, game) {
  const all = t.links || {};
  const links = all[game] || Object.values(all)[0] || [];
  if (!links.length) return null;
  const parts = [" (more: "];
  links.forEach((l, i) => {
    if (i) parts.push("; ");
    parts.push(el("a", { href: l.href, target: "_blank", rel: "noopener" }, l.text));
  });
  parts.push(")");
  return el("span", { class: "term-source" }, ...parts);
}

/** A button reading ``text`` (default: the word) that explains ``word`` of ``game``. */
export function term(word, game = null, text = null) {
  const button = el("button", { type: "button", class: "term", "aria-expanded": "false" },
    text ?? word);
  button.addEventListener("click", async (e) => {
    e.stopPropagation();
    const wasOpen = open && open.button === button;
    close();
    if (wasOpen) return;
    const t = await lookup(word, game);
    const box = el("span", { class: "term-box", role: "note", id: `term-${Math.random().toString(36).slice(2)}` },
      el("b", {}, t ? t.word : word), ": ",
      t ? t.means : "no definition in the glossary",
      t ? source(t, game) : null);
    button.after(box);
    button.setAttribute("aria-expanded", "true");
    button.setAttribute("aria-controls", box.id);
    open = { button, box };
  });
  return button;
}
