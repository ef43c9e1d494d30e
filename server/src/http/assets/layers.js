// Boards of square layers stacked into a cube (the 3×3×3 cube, Qubic's
// 4×4×4): the layers side by side, each a grid of buttons.
import { gridElement } from "./grid.js";

export function render(container, view) {
  const n = view.rules.n;
  const layers = document.createElement("div");
  layers.className = "layers";
  // Three layers fit side by side; four (Qubic) go two by two, so that
  // their cells stay large enough to read and to hit.
  layers.style.setProperty("--per-row", n <= 3 ? n : 2);
  for (let z = 0; z < n; z++) {
    const figure = document.createElement("figure");
    figure.className = "layer";
    const caption = document.createElement("figcaption");
    caption.textContent = `layer ${z + 1}`;
    figure.append(gridElement(view, n, z * n * n, `layer ${z + 1}`), caption);
    layers.append(figure);
  }
  container.replaceChildren(layers);
}
