// The rules the page needs to draw boards and replay moves: cells and
// lines for the tic-tac-toe family (an n×n grid, or n layers of n×n
// cells), edges and boxes for dots-and-boxes; and the coordinates people
// read (columns a, b, c…, rows 1, 2, 3… from the top, layers A, B, C…; a
// dots edge by the two dots it joins, a1–b1). The server stays the judge:
// the page checks every position and move it is given with the server
// (/api/v1/check) before drawing, and plays only what the rules there
// accept; the notation sent to the server is the game's own (cells and
// edges by number).

/** A game's rules from its board, as `/api/v1/games` describes it:
 * `{ kind: "grid" | "layers", size }` or `{ kind: "dots", rows, cols }`. */
export function rulesFor(board) {
  if (board.kind === "dots") return new DotsRules(board.rows, board.cols);
  return new LineRules(board.size, board.kind === "layers" ? 3 : 2);
}

/** Column letters: a, b, c… */
export function letter(i) {
  return String.fromCharCode(97 + i);
}

/** Every line of n cells in an n^dims board (rows, columns, diagonals). */
function allLines(n, dims) {
  const lines = [];
  const dirs = [];
  const rec = (prefix) => {
    if (prefix.length === dims) {
      // One direction of each opposite pair: the first non-zero step is +1.
      if (prefix.find((s) => s !== 0) === 1) dirs.push(prefix);
      return;
    }
    for (const s of [-1, 0, 1]) rec([...prefix, s]);
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
  /** Cells 'X', 'O' or '.' from the server's normalised notation. */
  parse(text) {
    const cells = String(text).replace(/\//g, "").split("");
    if (cells.length !== this.size || cells.some((c) => !"XO.".includes(c))) {
      throw new Error(`not a position of this board: ${text}`);
    }
    return cells;
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
  /** The cells after a move (turns alternate). */
  play(cells, mv) {
    const next = cells.slice();
    next[Number(mv)] = this.toMove(cells);
    return next;
  }
  /** Column, row and layer of a cell (from 0). */
  xyz(mv) {
    const i = Number(mv);
    const n = this.n;
    return { x: i % n, y: Math.floor(i / n) % n, z: Math.floor(i / (n * n)) };
  }
  /** The cell at column x, row y, layer z, or null off the board. */
  at(x, y, z = 0) {
    const n = this.n;
    const layers = this.dims === 3 ? n : 1;
    if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= layers) return null;
    return String(x + n * y + n * n * z);
  }
  /** The layer letter (A, B, C…) of layer z. */
  layerName(z) {
    return String.fromCharCode(65 + z);
  }
  /** A cell as people write it: "b2" (column b, row 2), "Ab2" on layer A. */
  coord(mv) {
    const { x, y, z } = this.xyz(mv);
    const cell = `${letter(x)}${y + 1}`;
    return this.dims === 3 ? `${this.layerName(z)}${cell}` : cell;
  }
  /** A cell for a screen reader: "b2", "layer A, b2". */
  where(mv) {
    const { x, y, z } = this.xyz(mv);
    const cell = `${letter(x)}${y + 1}`;
    return this.dims === 3 ? `layer ${this.layerName(z)}, ${cell}` : cell;
  }
}

/** Dots-and-boxes on rows × cols boxes. Edges are numbered as the
 * notation orders them: horizontal edges row by row from the top, then
 * vertical ones row by row. Dots are named by column letter and row
 * number (a1 top left), an edge by the two dots it joins. */
export class DotsRules {
  constructor(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.horizontals = (rows + 1) * cols;
    this.size = this.horizontals + rows * (cols + 1);
  }
  /** Edges (0 or 1) from the server's normalised notation `RxC:bits`. */
  parse(text) {
    const [board, bits = ""] = String(text).split(":");
    if (board !== `${this.rows}x${this.cols}` || !/^[01]*$/.test(bits) || bits.length !== this.size) {
      throw new Error(`not a position of this board: ${text}`);
    }
    return bits.split("").map(Number);
  }
  notation(edges) {
    return `${this.rows}x${this.cols}:${edges.join("")}`;
  }
  empty() {
    return new Array(this.size).fill(0);
  }
  /** `[kind, r, c]` of an edge's notation (`h0,1`), or null. */
  split(mv) {
    const m = /^([hv])(\d+),(\d+)$/.exec(mv);
    if (!m) return null;
    const [kind, r, c] = [m[1], Number(m[2]), Number(m[3])];
    const fits = kind === "h" ? r <= this.rows && c < this.cols : r < this.rows && c <= this.cols;
    return fits ? [kind, r, c] : null;
  }
  edgeOf(mv) {
    const [kind, r, c] = this.split(mv);
    return kind === "h" ? r * this.cols + c : this.horizontals + r * (this.cols + 1) + c;
  }
  nameOf(edge) {
    if (edge < this.horizontals) return `h${Math.floor(edge / this.cols)},${edge % this.cols}`;
    const v = edge - this.horizontals;
    return `v${Math.floor(v / (this.cols + 1))},${v % (this.cols + 1)}`;
  }
  /** The edge of `kind` at r, c, or null off the board. */
  edgeAt(kind, r, c) {
    const mv = `${kind}${r},${c}`;
    return r >= 0 && c >= 0 && this.split(mv) ? mv : null;
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
  /** A dot's name: column letter, row number (a1 is the top left dot). */
  dot(r, c) {
    return `${letter(c)}${r + 1}`;
  }
  /** An edge as people write it: the two dots it joins, "a1–b1". */
  coord(mv) {
    const parts = this.split(mv);
    if (!parts) return mv;
    const [kind, r, c] = parts;
    return kind === "h" ? `${this.dot(r, c)}–${this.dot(r, c + 1)}` : `${this.dot(r, c)}–${this.dot(r + 1, c)}`;
  }
  /** An edge for a screen reader. */
  where(mv) {
    const parts = this.split(mv);
    if (!parts) return mv;
    const [kind, r, c] = parts;
    return kind === "h"
      ? `edge ${this.dot(r, c)} to ${this.dot(r, c + 1)}`
      : `edge ${this.dot(r, c)} to ${this.dot(r + 1, c)}`;
  }
  /** A box's name: its top left dot. */
  box(r, c) {
    return this.dot(r, c);
  }
}

/** A move in coordinates, or the text as given when it names no move of
 * the board (for messages about a bad link). */
export function coordOf(rules, mv) {
  if (rules instanceof DotsRules) return rules.coord(mv);
  return /^\d+$/.test(mv) && Number(mv) < rules.size ? rules.coord(mv) : String(mv);
}
