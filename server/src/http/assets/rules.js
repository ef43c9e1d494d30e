// The rules the page needs to draw boards and play moves locally: cells
// and lines for the tic-tac-toe family (any n×n grid, or n layers of n×n
// cells), edges and boxes for dots-and-boxes. The server stays the judge: every position
// the page shows is sent to it, which reads it with the game's own rules
// (lookup/src/games/) and refuses an illegal one.

/** A game's rules from its board, as `/api/v1/games` describes it:
 * `{ kind: "grid" | "layers", size }` or `{ kind: "dots", rows, cols }`. */
export function rulesFor(board) {
  if (board.kind === "dots") return new DotsRules(board.rows, board.cols);
  return new LineRules(board.size, board.kind === "layers" ? 3 : 2);
}

/** Every line of n cells in an n^dims board (rows, columns, diagonals). */
function allLines(n, dims) {
  const lines = [];
  const dirs = [];
  const steps = [-1, 0, 1];
  const rec = (prefix) => {
    if (prefix.length === dims) {
      // One direction of each opposite pair: the first non-zero step is +1.
      const first = prefix.find((s) => s !== 0);
      if (first === 1) dirs.push(prefix);
      return;
    }
    for (const s of steps) rec([...prefix, s]);
  };
  rec([]);
  const index = (coords) => coords.reduce((acc, c, i) => acc + c * Math.pow(n, i), 0);
  const total = Math.pow(n, dims);
  for (let cell = 0; cell < total; cell++) {
    const start = [];
    for (let i = 0, c = cell; i < dims; i++, c = Math.floor(c / n)) start.push(c % n);
    for (const d of dirs) {
      const line = [];
      for (let k = 0; k < n; k++) {
        const p = start.map((s, i) => s + d[i] * k);
        if (p.some((v) => v < 0 || v >= n)) break;
        line.push(index(p));
      }
      // Only lines that start at their first cell (the cell before is off the board).
      const before = start.map((s, i) => s - d[i]);
      if (line.length === n && before.some((v) => v < 0 || v >= n)) lines.push(line);
    }
  }
  return lines;
}

/** Tic-tac-toe on an n×n grid (dims 2) or an n×n×n cube (dims 3). */
export class LineRules {
  constructor(n, dims) {
    this.n = n;
    this.dims = dims;
    this.size = Math.pow(n, dims);
    this.lines = allLines(n, dims);
  }
  /** Cells 'X', 'O' or '.' from notation. */
  parse(text) {
    return text.replace(/\//g, "").split("");
  }
  notation(cells) {
    const n = this.n;
    let out = "";
    cells.forEach((c, i) => {
      if (i > 0 && i % (n * n) === 0 && this.dims === 3) out += "//";
      else if (i > 0 && i % n === 0) out += "/";
      out += c;
    });
    return out;
  }
  empty() {
    return new Array(this.size).fill(".");
  }
  toMove(cells) {
    const x = cells.filter((c) => c === "X").length;
    const o = cells.filter((c) => c === "O").length;
    return x > o ? "O" : "X";
  }
  /** The first complete line and its owner, or null. */
  winLine(cells) {
    for (const line of this.lines) {
      const c = cells[line[0]];
      if (c !== "." && line.every((i) => cells[i] === c)) return { owner: c, line };
    }
    return null;
  }
  over(cells) {
    return this.winLine(cells) !== null || cells.every((c) => c !== ".");
  }
  moves(cells) {
    if (this.winLine(cells)) return [];
    const out = [];
    cells.forEach((c, i) => c === "." && out.push(String(i)));
    return out;
  }
  /** The state after a move: { cells, again: false } (turns alternate). */
  play(cells, mv) {
    const next = cells.slice();
    next[Number(mv)] = this.toMove(cells);
    return next;
  }
  /** Where a cell is, for people: "row 2, column 3" (and "layer 1, "). */
  where(i) {
    const n = this.n;
    const x = i % n;
    const y = Math.floor(i / n) % n;
    const z = Math.floor(i / (n * n));
    const place = `row ${y + 1}, column ${x + 1}`;
    return this.dims === 3 ? `layer ${z + 1}, ${place}` : place;
  }
}

/** Dots-and-boxes on rows × cols boxes. Edges are numbered as the
 * notation orders them: horizontal edges row by row from the top, then
 * vertical ones row by row. */
export class DotsRules {
  constructor(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.horizontals = (rows + 1) * cols;
    this.size = this.horizontals + rows * (cols + 1);
  }
  parse(text) {
    const bits = text.split(":")[1] || "";
    if (/^[01]*$/.test(bits) && bits.length === this.size) return bits.split("").map(Number);
    // Move-list notation: replay the moves.
    let edges = this.empty();
    for (const mv of bits.split(/[\s;]+/).filter(Boolean)) edges[this.edgeOf(mv)] = 1;
    return edges;
  }
  notation(edges) {
    return `${this.rows}x${this.cols}:${edges.join("")}`;
  }
  empty() {
    return new Array(this.size).fill(0);
  }
  edgeOf(mv) {
    const [, kind, r, c] = /^([hv])(\d+),(\d+)$/.exec(mv);
    return kind === "h"
      ? Number(r) * this.cols + Number(c)
      : this.horizontals + Number(r) * (this.cols + 1) + Number(c);
  }
  nameOf(edge) {
    if (edge < this.horizontals) return `h${Math.floor(edge / this.cols)},${edge % this.cols}`;
    const v = edge - this.horizontals;
    return `v${Math.floor(v / (this.cols + 1))},${v % (this.cols + 1)}`;
  }
  boxEdges(r, c) {
    return [
      r * this.cols + c,
      (r + 1) * this.cols + c,
      this.horizontals + r * (this.cols + 1) + c,
      this.horizontals + r * (this.cols + 1) + c + 1,
    ];
  }
  /** Boxes whose four edges are drawn, as [r, c] pairs. */
  boxesClosed(edges) {
    const out = [];
    for (let r = 0; r < this.rows; r++)
      for (let c = 0; c < this.cols; c++)
        if (this.boxEdges(r, c).every((e) => edges[e])) out.push([r, c]);
    return out;
  }
  /** Boxes a move closes (0, 1 or 2). */
  closes(edges, edge) {
    let n = 0;
    for (let r = 0; r < this.rows; r++)
      for (let c = 0; c < this.cols; c++) {
        const be = this.boxEdges(r, c);
        if (be.includes(edge) && be.every((e) => e === edge || edges[e])) n++;
      }
    return n;
  }
  over(edges) {
    return edges.every((e) => e === 1);
  }
  moves(edges) {
    const out = [];
    edges.forEach((e, i) => e === 0 && out.push(this.nameOf(i)));
    return out;
  }
  play(edges, mv) {
    const next = edges.slice();
    next[this.edgeOf(mv)] = 1;
    return next;
  }
  where(mv) {
    const [, kind, r, c] = /^([hv])(\d+),(\d+)$/.exec(mv);
    return kind === "h"
      ? `horizontal edge in row ${Number(r) + 1} of dots, between columns ${Number(c) + 1} and ${Number(c) + 2}`
      : `vertical edge in column ${Number(c) + 1} of dots, between rows ${Number(r) + 1} and ${Number(r) + 2}`;
  }
}
