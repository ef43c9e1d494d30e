// One Tab stop per board (a roving tabindex): of a board's cells or edges
// exactly one is in the tab order — the one last focused, else the last
// move, else the first — and the arrow keys move between them, as each
// board module says (`neighbour`). Enter and Space play the focused move
// (buttons do that themselves; SVG edges are told here).

const remembered = new WeakMap(); // board container → the move last focused

/** Makes `items` (elements with `data-move`) one Tab stop in `container`;
 * `neighbour(mv, key)` gives the move an arrow key leads to, or null;
 * `onPick(mv)` plays; `reveal(mv)` is called before an arrow key moves
 * the focus to `mv`. Returns the element in the tab order. */
export function rove(container, items, { preferred = null, neighbour, onPick, onFocus = () => {}, reveal = () => {} }) {
  const byMove = new Map(items.map((el) => [el.dataset.move, el]));
  const current = byMove.get(remembered.get(container)) || byMove.get(preferred) || items[0];
  for (const el of items) {
    el.tabIndex = el === current ? 0 : -1;
    el.addEventListener("focus", () => {
      remembered.set(container, el.dataset.move);
      for (const other of items) other.tabIndex = other === el ? 0 : -1;
      onFocus(el.dataset.move);
    });
  }
  // One handler per container, replaced at every render.
  container.onkeydown = (event) => {
    const el = event.target.closest && event.target.closest("[data-move]");
    if (!el || !byMove.has(el.dataset.move)) return;
    if ((event.key === "Enter" || event.key === " ") && el.tagName.toLowerCase() !== "button") {
      event.preventDefault();
      onPick(el.dataset.move);
      return;
    }
    const next = neighbour(el.dataset.move, event.key);
    if (next === undefined) return;
    event.preventDefault();
    const target = next === null ? null : byMove.get(next);
    if (target) {
      reveal(next); // a board may show the part it is in first
      target.focus();
    }
  };
  return current;
}

/** Forgets the remembered focus of a board (a new game). */
export function forget(container) {
  remembered.delete(container);
}
