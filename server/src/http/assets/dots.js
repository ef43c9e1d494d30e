// Dots-and-boxes: an SVG board. Dots are named by column letter and row
// number (a1 top left, drawn beside the board); each edge is a focusable
// button (role="button") whose hit area is the diamond between its two dots
// and the centres of its boxes, so that the edges tile the board and each
// is as large as it can be. Boxes fill with the colour of the player who
// took them. The arrow keys walk along the edges: Left and Right along a
// row of edges, Up and Down to the row of edges above or below.
import { letter } from "./rules.js";
import { rove } from "./focus.js";

const SVG = "http://www.w3.org/2000/svg";
const GAP = 100;
const PAD = 60; // room for the coordinates and the outer edges' values
// On the right, room for the last column's values beside their edges
// (a 13 px "−17" on a phone's 5×5 board, "−1" on 1×7); more would shrink
// 1×7's edges below 44 px there.
const PAD_RIGHT = PAD + 10;

function el(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The board's width, in pixels, below which it is laid out for a phone. */
const PHONE = 480;

// Text in the SVG would scale with the board (a 2×2 board drawn 560 px
// wide had 31 px tags): keep tags at 16 px and coordinates at 14 px on the
// screen however large the board is drawn, 13 px and 12 px on a phone;
// a range's tag 12 px (12.5 on a phone, so rounding keeps it at 12).
function fitText(svg, width) {
  if (!width) return;
  const units = Number(svg.dataset.width) / width; // user units per pixel
  const phone = width < PHONE;
  svg.style.setProperty("--tag", `${(phone ? 13 : 16) * units}px`);
  // A range's tag is longer and smaller, but never under 12 px on a phone.
  svg.style.setProperty("--bound-tag", `${(phone ? 12.5 : 12) * units}px`);
  svg.style.setProperty("--label", `${(phone ? 12 : 14) * units}px`);
  svg.style.setProperty("--halo", `${3 * units}px`);
}

// Later changes of the board's width (a turned phone, a resized window).
const sizes = new ResizeObserver((entries) => {
  for (const entry of entries) fitText(entry.target, entry.contentRect.width);
});

/** Arrow keys along the edges (see the module's comment). */
function step(rules, mv, key) {
  const [kind, r, c] = rules.split(mv);
  const row = kind === "h" ? rules.cols : rules.cols + 1; // edges in this row
  if (key === "ArrowLeft") return rules.edgeAt(kind, r, c - 1);
  if (key === "ArrowRight") return rules.edgeAt(kind, r, c + 1);
  if (key === "Home") return rules.edgeAt(kind, r, 0);
  if (key === "End") return rules.edgeAt(kind, r, row - 1);
  if (kind === "h") {
    // To the vertical edges below or above: the one at this edge's left dot.
    if (key === "ArrowUp") return rules.edgeAt("v", r - 1, c);
    if (key === "ArrowDown") return rules.edgeAt("v", r, c);
  } else {
    const h = Math.min(c, rules.cols - 1);
    if (key === "ArrowUp") return rules.edgeAt("h", r, h);
    if (key === "ArrowDown") return rules.edgeAt("h", r + 1, h);
  }
  return undefined;
}

/** A tag's lines on a phone: a range with one end at the least (the most)
 * the boxes still open allow says only its other end, "≤+3" ("≥−1"), the
 * same fact in a third of the width; any other range its ends on two
 * lines; a value as it is. */
function phoneLines(value, remaining) {
  const ends = value.short.split("…");
  if (ends.length !== 2) return [value.short];
  if (value.lower === -remaining) return [`≤${ends[1]}`];
  if (value.upper === remaining) return [`≥${ends[0]}`];
  return [`${ends[0]}…`, ends[1]];
}

export function render(container, view) {
  const { rules } = view;
  // The width fitText calls a phone's (the board fills its container).
  const phone = container.clientWidth > 0 && container.clientWidth < PHONE;
  const width = rules.cols * GAP + PAD + PAD_RIGHT;
  const height = rules.rows * GAP + 2 * PAD;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "dots",
    role: "group",
    "aria-label": `dots-and-boxes board, ${rules.rows} by ${rules.cols} boxes; dots a1 to ${rules.dot(rules.rows, rules.cols)}`,
  });
  svg.dataset.width = String(width);
  svg.style.setProperty("--ratio", `${width} / ${height}`);
  const x = (c) => PAD + c * GAP;
  const y = (r) => PAD + r * GAP;
  // Coordinates: column letters above, row numbers to the left.
  for (let c = 0; c <= rules.cols; c++) {
    const t = el("text", { x: x(c), y: PAD - 34, class: "axis-label", "text-anchor": "middle", "aria-hidden": "true" });
    t.textContent = letter(c);
    svg.append(t);
  }
  for (let r = 0; r <= rules.rows; r++) {
    const t = el("text", { x: PAD - 38, y: y(r), class: "axis-label", "text-anchor": "middle", "dominant-baseline": "central", "aria-hidden": "true" });
    t.textContent = String(r + 1);
    svg.append(t);
  }
  // Boxes.
  for (let r = 0; r < rules.rows; r++)
    for (let c = 0; c < rules.cols; c++) {
      const owner = view.owners.get(`${r},${c}`);
      if (owner === undefined) continue;
      const box = el("rect", {
        x: x(c) + 6, y: y(r) + 6, width: GAP - 12, height: GAP - 12,
        class: `box owner-${owner}`,
      });
      const label = el("text", {
        x: x(c) + GAP / 2, y: y(r) + GAP / 2 + 12, class: "box-label", "text-anchor": "middle",
      });
      label.textContent = owner === "?" ? "?" : owner === 0 ? "A" : "B";
      svg.append(box, label);
    }
  // Edges.
  const edges = [];
  for (let e = 0; e < rules.size; e++) {
    const mv = rules.nameOf(e);
    const [kind, r, c] = rules.split(mv);
    const x1 = x(c);
    const y1 = y(r);
    const x2 = kind === "h" ? x1 + GAP : x1;
    const y2 = kind === "h" ? y1 : y1 + GAP;
    const drawn = view.cells[e] === 1;
    const value = view.values.get(mv);
    const g = el("g", { class: "edge", role: "button", "data-move": mv });
    if (drawn) g.classList.add("drawn");
    if (value) {
      g.classList.add("value", ...value.cls.split(" ").filter(Boolean));
      if (value.best) g.classList.add("best");
      g.style.setProperty("--strength", String(value.strength));
    }
    if (view.lastMove === mv) g.classList.add("last");
    let label = `${rules.where(mv)}, ${drawn ? "drawn" : "open"}`;
    if (view.lastMove === mv) label += ", the last move";
    if (value) label += `: ${value.text}${value.hint ? `, ${value.hint}` : ""}`;
    g.setAttribute("aria-label", label);
    const inert = view.locked || (!view.editing && !value && !(view.playable && !drawn));
    g.setAttribute("aria-disabled", String(inert));
    // The hit area: the diamond between the two dots and the centres of
    // the boxes on either side.
    const mx = (x1 + x2) / 2;
    const my = (y1 + y2) / 2;
    const h = GAP / 2;
    const diamond = kind === "h"
      ? `${x1},${y1} ${mx},${my - h} ${x2},${y2} ${mx},${my + h}`
      : `${x1},${y1} ${mx + h},${my} ${x2},${y2} ${mx - h},${my}`;
    // The hit area lies on top of the drawn line, so clicks land on it.
    g.append(
      el("line", { x1, y1, x2, y2, class: "stroke" }),
      el("polygon", { points: diamond, class: "hit" }),
    );
    if (value && !drawn && phone) {
      // On a phone a box is about 60 px, too small for two tags inside
      // it: each tag on its own edge's middle, one line, over a halo of
      // the page's colour. Tags of edges at right angles are half a box
      // apart each way, so a tag less than a box wide and half a box
      // high meets no other, and the margins hold the outer ones.
      const t = el("text", {
        x: mx, y: my, class: "edge-tag on-edge", "text-anchor": "middle", "dominant-baseline": "central",
      });
      const lines = phoneLines(value, rules.rows * rules.cols - view.owners.size);
      if (lines.length === 2) {
        for (const [text, dy] of [[lines[0], "-0.55em"], [lines[1], "1.1em"]]) {
          const span = el("tspan", { x: mx, dy });
          span.textContent = text;
          t.append(span);
        }
      } else {
        t.textContent = lines[0];
      }
      g.append(t);
    } else if (value && !drawn) {
      // A vertical edge's value to its right, a little above the middle
      // (clear of the value of the box's bottom edge, drawn above that
      // edge); the last column's go into the wider margin on the right.
      const t = el("text", {
        x: mx + (kind === "v" ? 12 : 0),
        y: my + (kind === "h" ? -12 : -GAP / 6),
        class: "edge-tag",
        "text-anchor": kind === "v" ? "start" : "middle",
        "dominant-baseline": kind === "v" ? "central" : "auto",
      });
      const range = value.short.split("…");
      if (kind === "v" && range.length === 2) {
        // A range beside a vertical edge would run into the next edge (and
        // past the margin in the last column): its ends on two lines, the
        // same text read aloud.
        const line = (text, dy) => {
          const span = el("tspan", { x: mx + 12, dy });
          span.textContent = text;
          return span;
        };
        t.append(line(`${range[0]}…`, "-0.55em"), line(range[1], "1.1em"));
      } else {
        t.textContent = value.short;
      }
      g.append(t);
    }
    g.addEventListener("click", () => view.onPick(mv));
    svg.append(g);
    edges.push(g);
  }
  for (let r = 0; r <= rules.rows; r++)
    for (let c = 0; c <= rules.cols; c++)
      svg.append(el("circle", { cx: x(c), cy: y(r), r: 7, class: "dot" }));
  container.replaceChildren(svg);
  // Fitted now, not only when the observer first reports: its report comes
  // at the next rendering step, and until then the page (and anyone who
  // reads it, a test included) would have the text at the SVG's own scale.
  fitText(svg, svg.getBoundingClientRect().width);
  sizes.observe(svg);
  rove(container, edges, {
    preferred: view.lastMove,
    neighbour: (mv, key) => step(rules, mv, key),
    onPick: view.onPick,
  });
}
