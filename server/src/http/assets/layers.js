// Boards of square layers stacked into a cube (the 3×3×3 cube, Qubic's
// 4×4×4): layers A, B, C… each a grid of buttons (grid.js). Wide screens
// show every layer (three side by side; four two by two); narrow ones one
// layer at a time, large enough to read and to hit, with a strip of tabs
// that draws each layer small, to switch. The arrow keys cross from one
// layer to the next (Left and Right at a row's end), Page Up and Page
// Down go to the same cell one layer up or down.
import { gridElement, squareStep } from "./grid.js";
import { rove } from "./focus.js";

// The layer shown on narrow screens, per board; it follows the last move
// (so the computer's answer is in sight) until a tab or the focus says
// otherwise.
const shown = { key: "", z: 0, last: null };

function show(container, z) {
  shown.z = z;
  for (const figure of container.querySelectorAll(".layer")) {
    figure.classList.toggle("shown", Number(figure.dataset.layer) === z);
  }
  // The board's one Tab stop must be a cell that can be seen.
  const cells = [...container.querySelectorAll(".grid [data-move]")];
  const stop = cells.find((c) => c.tabIndex === 0);
  if (stop && stop.getClientRects().length === 0) {
    const first = container.querySelector(`.layer[data-layer="${z}"] [data-move]`);
    for (const c of cells) c.tabIndex = c === first ? 0 : -1;
  }
  for (const tab of container.querySelectorAll(".layer-tab")) {
    const on = Number(tab.dataset.layer) === z;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
  }
}

/** A tab: the layer's name and a small picture of its cells. */
function tab(view, z, container) {
  const { rules } = view;
  const n = rules.n;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "layer-tab";
  button.setAttribute("role", "tab");
  button.dataset.layer = String(z);
  const name = document.createElement("span");
  name.className = "layer-name";
  const word = document.createElement("span");
  word.className = "layer-word";
  word.textContent = "Layer ";
  name.append(word, rules.layerName(z));
  button.setAttribute("aria-label", `Layer ${rules.layerName(z)}`);
  const mini = document.createElement("span");
  mini.className = "mini";
  mini.style.setProperty("--n", n);
  mini.setAttribute("aria-hidden", "true");
  let x = 0;
  let o = 0;
  let last = false;
  for (let k = 0; k < n * n; k++) {
    const mv = String(z * n * n + k);
    const mark = view.cells[Number(mv)];
    const dot = document.createElement("span");
    if (mark === "X") x++;
    if (mark === "O") o++;
    if (mark !== ".") dot.className = `mark-${mark.toLowerCase()}`;
    else if (view.values.get(mv)) dot.className = view.values.get(mv).cls;
    if (view.lastMove === mv) {
      dot.classList.add("last");
      last = true;
    }
    if (view.winLine && view.winLine.includes(Number(mv))) dot.classList.add("win");
    mini.append(dot);
  }
  button.setAttribute(
    "aria-label",
    `layer ${rules.layerName(z)}: ${x} X, ${o} O${last ? ", the last move" : ""}`,
  );
  button.append(name, mini);
  button.addEventListener("click", () => show(container, z));
  return button;
}

export function render(container, view) {
  const { rules } = view;
  const n = rules.n;
  const key = `${n}`;
  if (shown.key !== key) Object.assign(shown, { key, z: 0, last: null });
  if (view.lastMove !== null && view.lastMove !== shown.last) shown.z = rules.xyz(view.lastMove).z;
  shown.last = view.lastMove;

  const layers = document.createElement("div");
  layers.className = "layers";
  // Three layers fit side by side; four (Qubic) go two by two.
  layers.style.setProperty("--per-row", n <= 3 ? n : 2);
  const tabs = document.createElement("div");
  tabs.className = n > 3 ? "layer-tabs many" : "layer-tabs";
  tabs.setAttribute("role", "tablist");
  tabs.setAttribute("aria-label", "layers");
  for (let z = 0; z < n; z++) tabs.append(tab(view, z, container));
  tabs.addEventListener("keydown", (event) => {
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const z = (shown.z + step + n) % n;
    show(container, z);
    tabs.querySelector(`[data-layer="${z}"]`).focus();
  });
  layers.append(tabs);
  for (let z = 0; z < n; z++) {
    const figure = document.createElement("figure");
    figure.className = "layer";
    figure.dataset.layer = String(z);
    const caption = document.createElement("figcaption");
    caption.textContent = `Layer ${rules.layerName(z)}`;
    figure.append(caption, gridElement(view, n, z * n * n, `layer ${rules.layerName(z)}`));
    layers.append(figure);
  }
  container.replaceChildren(layers);
  rove(container, [...container.querySelectorAll(".grid [data-move]")], {
    preferred: view.lastMove,
    neighbour: (mv, key) => {
      const { x, y, z } = rules.xyz(mv);
      if (key === "PageUp") return rules.at(x, y, z - 1);
      if (key === "PageDown") return rules.at(x, y, z + 1);
      // Off a row's end: on into the next layer (or back into the last).
      if (key === "ArrowRight" && x === n - 1) return rules.at(0, y, z + 1);
      if (key === "ArrowLeft" && x === 0) return rules.at(n - 1, y, z - 1);
      return squareStep(rules, mv, key);
    },
    onPick: view.onPick,
    reveal: (mv) => show(container, rules.xyz(mv).z),
    onFocus: (mv) => {
      const z = rules.xyz(mv).z;
      if (z !== shown.z) show(container, z);
    },
  });
  show(container, shown.z);
}
