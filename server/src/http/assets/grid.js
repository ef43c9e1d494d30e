// Tic-tac-toe boards (any n×n): one button per cell, in a square CSS grid.
// Also draws one layer of the cube (see cube.js).

/** Draws `cells` (a slice of the board starting at `offset`) as an n×n grid. */
export function gridElement(view, n, offset, caption) {
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.style.setProperty("--n", n);
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", caption);
  for (let k = 0; k < n * n; k++) {
    const i = offset + k;
    const mark = view.cells[i];
    const mv = String(i);
    const value = view.values.get(mv);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell";
    button.dataset.move = mv;
    button.dataset.index = String(k);
    if (mark !== ".") {
      button.classList.add("mark-" + mark.toLowerCase());
      button.textContent = mark;
    } else if (value) {
      button.classList.add("value", value.cls);
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = value.short;
      button.append(tag);
    }
    if (view.winLine && view.winLine.includes(i)) button.classList.add("win");
    if (view.lastMove === mv) button.classList.add("last");
    const what = mark === "." ? "empty" : mark;
    let label = `${view.rules.where(i)}, ${what}`;
    if (value) label += `, move ${mv}: ${value.text}`;
    button.setAttribute("aria-label", label);
    // aria-disabled, not disabled: every cell stays focusable (arrow keys
    // walk the board); the page ignores picks that are not moves.
    const inert = view.locked || (!view.editing && !value && !(view.playable && mark === "."));
    button.setAttribute("aria-disabled", String(inert));
    button.addEventListener("click", () => view.onPick(mv));
    button.addEventListener("keydown", (e) => arrows(e, grid, n, k));
    grid.append(button);
  }
  return grid;
}

/** Arrow keys move focus between cells of one grid. */
function arrows(event, grid, n, k) {
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -n, ArrowDown: n }[event.key];
  if (step === undefined) return;
  const next = k + step;
  if (next < 0 || next >= n * n) return;
  if ((step === 1 || step === -1) && Math.floor(next / n) !== Math.floor(k / n)) return;
  event.preventDefault();
  const target = grid.querySelector(`[data-index="${next}"]`);
  if (target) target.focus();
}

export function render(container, view) {
  container.replaceChildren(gridElement(view, view.rules.n, 0, "board"));
}
