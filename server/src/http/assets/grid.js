// Tic-tac-toe boards (any n×n): one button per cell in a square CSS grid,
// columns a, b, c… above and rows 1, 2, 3… beside it. Also draws each
// layer of the cube and Qubic (layers.js).
import { letter } from "./rules.js";
import { rove } from "./focus.js";

/** One cell's button: its mark, or its value's tag, shade and label. */
function cell(view, mv) {
  const mark = view.cells[Number(mv)];
  const value = view.values.get(mv);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "cell";
  button.dataset.move = mv;
  if (mark !== ".") {
    button.classList.add("mark-" + mark.toLowerCase());
    button.textContent = mark;
  } else if (value) {
    button.classList.add("value", ...value.cls.split(" ").filter(Boolean));
    if (value.best) button.classList.add("best");
    button.style.setProperty("--strength", String(value.strength));
    const tag = document.createElement("span");
    tag.className = "tag";
    tag.textContent = value.short;
    button.append(tag);
  }
  if (view.winLine && view.winLine.includes(Number(mv))) button.classList.add("win");
  if (view.lastMove === mv) button.classList.add("last");
  let label = `${view.rules.where(mv)}, ${mark === "." ? "empty" : mark}`;
  if (view.lastMove === mv) label += ", the last move";
  if (value) label += `: ${value.text}${value.hint ? `, ${value.hint}` : ""}`;
  button.setAttribute("aria-label", label);
  // aria-disabled, not disabled: a disabled button cannot hold the focus
  // the arrow keys move; the page ignores picks that are not moves.
  const inert = view.locked || (!view.editing && !value && !(view.playable && mark === "."));
  button.setAttribute("aria-disabled", String(inert));
  button.addEventListener("click", () => view.onPick(mv));
  return button;
}

/** An n×n grid of cells starting at cell `offset`, with its coordinates. */
export function gridElement(view, n, offset, caption) {
  const frame = document.createElement("div");
  frame.className = "frame";
  frame.style.setProperty("--n", n);
  const columns = document.createElement("div");
  columns.className = "axis columns";
  columns.setAttribute("aria-hidden", "true");
  const rows = document.createElement("div");
  rows.className = "axis rows";
  rows.setAttribute("aria-hidden", "true");
  for (let k = 0; k < n; k++) {
    const c = document.createElement("span");
    c.textContent = letter(k);
    const r = document.createElement("span");
    r.textContent = String(k + 1);
    columns.append(c);
    rows.append(r);
  }
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", caption);
  for (let k = 0; k < n * n; k++) grid.append(cell(view, String(offset + k)));
  frame.append(columns, rows, grid);
  return frame;
}

/** Arrow keys within a square: Home and End to the row's ends. */
export function squareStep(rules, mv, key) {
  const { x, y, z } = rules.xyz(mv);
  const n = rules.n;
  const to = {
    ArrowLeft: [x - 1, y],
    ArrowRight: [x + 1, y],
    ArrowUp: [x, y - 1],
    ArrowDown: [x, y + 1],
    Home: [0, y],
    End: [n - 1, y],
  }[key];
  if (!to) return undefined;
  return rules.at(to[0], to[1], z);
}

export function render(container, view) {
  container.replaceChildren(gridElement(view, view.rules.n, 0, "board"));
  rove(container, [...container.querySelectorAll("[data-move]")], {
    preferred: view.lastMove,
    neighbour: (mv, key) => squareStep(view.rules, mv, key),
    onPick: view.onPick,
  });
}
