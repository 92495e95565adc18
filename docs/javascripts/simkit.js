// A table wider than a phone scrolls in its box (the theme wraps it): the box is made a
// named, focusable region, so that the keyboard can scroll it too.
function scrollBoxes() {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap")) {
    if (box.hasAttribute("tabindex")) continue;
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "a table; scroll it sideways");
  }
}
if (typeof document$ !== "undefined") document$.subscribe(scrollBoxes);
else addEventListener("load", scrollBoxes);
