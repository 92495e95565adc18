// Game terms marked where the hand viewer and compare pages show them: each word the
// glossary explains becomes a glossary button (glossary.js), so that a tap, a click or
// the keyboard shows its definition.  Only the words a page lists are marked, each the
// first time it appears in a block, so that common words ("seat", "p") stay plain text.

import { glossary, term } from "./glossary.js";

let known = [];         // the glossary's terms, once loaded

/** Load the glossary (once); without one (an older server) nothing is marked. */
export async function loadTerms() {
  known = await glossary().catch(() => []);
  return known;
}

function find(word, game) {
  const w = word.trim().toLowerCase();
  return known.find((t) => (!t.games.length || !game || t.games.includes(game))
    && [t.key, t.word.toLowerCase(), ...t.aliases.map((a) => a.toLowerCase())].includes(w)) || null;
}

/** The glossary's term for ``word`` in ``game``, or null. */
export function termOf(word, game = null) {
  return find(word, game);
}

const escape = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * ``text`` as nodes, the words of ``words`` the glossary has for ``game`` as glossary
 * buttons, each term once per ``seen`` (a Set of term keys shared across a block).
 * ``words`` may map a word as written to the glossary's word ({"pozzetti": "pozzetto"}).
 */
export function explained(text, game, words, seen = new Set()) {
  const map = Array.isArray(words) ? Object.fromEntries(words.map((w) => [w, w])) : words;
  const usable = Object.keys(map).filter((w) => find(map[w], game))
    .sort((a, b) => b.length - a.length);          // "thrown in" before "thrown"
  if (!usable.length) return [text];
  const lower = Object.fromEntries(usable.map((w) => [w.toLowerCase(), map[w]]));
  const re = new RegExp(`(?<![\\w-])(${usable.map(escape).join("|")})(?![\\w-])`, "gi");
  const out = [];
  let at = 0;
  for (const m of text.matchAll(re)) {
    const t = find(lower[m[1].toLowerCase()], game);
    if (!t || seen.has(t.key)) continue;
    seen.add(t.key);
    out.push(text.slice(at, m.index));
    at = m.index + m[1].length;
    const stop = /^[:;,.)]/.exec(text.slice(at));
    if (stop) {           // a button is a box a line may break after: keep "term:" together
      const kept = document.createElement("span");
      kept.className = "term-kept";
      kept.append(term(t.key, game, m[1]), stop[0]);
      out.push(kept);
      at += 1;
    } else {
      out.push(term(t.key, game, m[1]));
    }
  }
  out.push(text.slice(at));
  return out.filter((x) => x !== "");
}

/** Replace ``node``'s text (a plain-text element) by its explained form. */
export function explain(node, game, words, seen = new Set()) {
  if (!known.length) return node;
  node.replaceChildren(...explained(node.textContent, game, words, seen));
  return node;
}

/** Every ``[data-term]`` element under ``root`` (its text shown, the term named by the
 *  attribute, its game by ``data-game``) as a glossary button. */
export function markStatic(root = document) {
  for (const s of root.querySelectorAll("[data-term]")) {
    const game = s.dataset.game || null;
    const t = find(s.dataset.term, game);
    if (t) s.replaceWith(term(t.key, game, s.textContent));
  }
}
