// Dots-and-boxes: an SVG board. Each edge is a focusable button (a wide
// invisible hit line over the drawn one); boxes fill with the colour of
// the player who took them.

const SVG = "http://www.w3.org/2000/svg";
const GAP = 100;
const PAD = 50; // room for the values of the outer edges

function el(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

export function render(container, view) {
  const { rules } = view;
  const width = rules.cols * GAP + 2 * PAD;
  const height = rules.rows * GAP + 2 * PAD;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "dots",
    role: "group",
    "aria-label": `dots-and-boxes board, ${rules.rows} by ${rules.cols} boxes`,
  });
  svg.style.setProperty("--ratio", `${width} / ${height}`);
  // Boxes.
  for (let r = 0; r < rules.rows; r++)
    for (let c = 0; c < rules.cols; c++) {
      const owner = view.owners.get(`${r},${c}`);
      if (owner === undefined) continue;
      const box = el("rect", {
        x: PAD + c * GAP + 6, y: PAD + r * GAP + 6, width: GAP - 12, height: GAP - 12,
        class: `box owner-${owner}`,
      });
      const label = el("text", {
        x: PAD + c * GAP + GAP / 2, y: PAD + r * GAP + GAP / 2 + 12, class: "box-label",
        "text-anchor": "middle",
      });
      label.textContent = owner === "?" ? "?" : owner === 0 ? "A" : "B";
      svg.append(box, label);
    }
  // Edges.
  for (let e = 0; e < rules.size; e++) {
    const mv = rules.nameOf(e);
    const [, kind, rs, cs] = /^([hv])(\d+),(\d+)$/.exec(mv);
    const r = Number(rs);
    const c = Number(cs);
    const x1 = PAD + c * GAP;
    const y1 = PAD + r * GAP;
    const x2 = kind === "h" ? x1 + GAP : x1;
    const y2 = kind === "h" ? y1 : y1 + GAP;
    const drawn = view.cells[e] === 1;
    const value = view.values.get(mv);
    const g = el("g", { class: "edge", role: "button", tabindex: "0", "data-move": mv });
    if (drawn) g.classList.add("drawn");
    if (value) g.classList.add("value", value.cls);
    if (view.lastMove === mv) g.classList.add("last");
    let label = `${rules.where(mv)}, ${drawn ? "drawn" : "open"}`;
    if (value) label += `, move ${mv}: ${value.text}`;
    g.setAttribute("aria-label", label);
    const inert = view.locked || (!view.editing && !value && !(view.playable && !drawn));
    g.setAttribute("aria-disabled", String(inert));
    // The hit area: a band along the edge, between its two dots.
    const hit = kind === "h"
      ? { x: x1 + 10, y: y1 - 14, width: GAP - 20, height: 28 }
      : { x: x1 - 14, y: y1 + 10, width: 28, height: GAP - 20 };
    // The hit area lies on top of the drawn line, so clicks land on it.
    g.append(
      el("line", { x1, y1, x2, y2, class: "stroke" }),
      el("rect", { ...hit, rx: 8, class: "hit" }),
    );
    if (value && !drawn) {
      const t = el("text", {
        x: (x1 + x2) / 2 + (kind === "v" ? 14 : 0),
        y: (y1 + y2) / 2 + (kind === "h" ? -10 : 6),
        class: "edge-tag",
        "text-anchor": kind === "v" ? "start" : "middle",
      });
      t.textContent = value.short;
      g.append(t);
    }
    g.addEventListener("click", () => view.onPick(mv));
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        view.onPick(mv);
      }
    });
    svg.append(g);
  }
  for (let r = 0; r <= rules.rows; r++)
    for (let c = 0; c <= rules.cols; c++)
      svg.append(el("circle", { cx: PAD + c * GAP, cy: PAD + r * GAP, r: 7, class: "dot" }));
  container.replaceChildren(svg);
}
