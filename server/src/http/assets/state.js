// What the explorer shows, in one object (`S`), and what follows from it
// alone: the position replayed from the history, the players, whether
// values are hidden. The modules that change `S` and must then redraw (the
// rated games) call the page through `view`, which app.js fills in at
// start, so no module imports app.js back.

export const $ = (id) => document.getElementById(id);

/** The page's drawing, set by app.js: `render()` redraws from `S`,
 * `refresh()` asks for the shown position's answer and redraws,
 * `writeUrl(push)` writes `S` into the address. */
export const view = { render: () => {}, refresh: async () => {}, writeUrl: () => {} };

export const LEVELS = ["human", "perfect", "classic", "random"];

export const S = {
  games: [],
  searchSeconds: 0,
  entry: null, // an entry of /api/v1/games: { game, title, kind, board, sides, start, table }
  rules: null,
  start: "",
  moves: [],
  at: 0,
  answer: null, // the shown position's: { ok: true, json } | { ok: false, kind, error }
  answers: new Map(), // position → answer (values and "unknown"): each asked once
  line: null, // { at, moves, end, error }
  lineAsking: false,
  editing: false,
  editCells: null,
  busy: false, // the computer, or the server's rated game, is moving
  token: 0,
  searches: null, // the server's count of live searches run (a response header)
  asking: 0, // when the probe of the shown position was sent (0: none running)
  pending: "", // what to announce once the new value is in
  rated: null, // { session, state } while a rated game is shown
  review: null, // the finished game's moves against perfect play
  reviewing: false,
  checking: false,
  problem: false,
};

export function announce(text) {
  $("status").textContent = text;
}

/** Whether a game's every answer comes from its table, at once: not for a
 * strategy table (Qubic's), whose other positions are searched live. */
export function tableOnly(entry) {
  return entry.table && entry.table_covers_every_position;
}

export function isDots() {
  return S.entry.kind === "dots";
}
export function sideNames() {
  return S.entry.sides;
}
export function coord(mv) {
  return S.rules.coord(mv);
}

/** Replays the history to `at`: the board, the side to move, box owners, scores. */
export function derive(at = S.at) {
  const rules = S.rules;
  let cells = rules.parse(S.start);
  if (!isDots()) {
    for (const mv of S.moves.slice(0, at)) cells = rules.play(cells, mv);
    const side = rules.toMove(cells);
    const won = rules.winLine(cells);
    return { cells, side: side === "X" ? 0 : 1, won, over: rules.over(cells) };
  }
  const owners = new Map();
  for (const [r, c] of rules.boxesClosed(cells)) owners.set(`${r},${c}`, "?");
  const score = [0, 0];
  let side = 0;
  for (const mv of S.moves.slice(0, at)) {
    const before = new Set(rules.boxesClosed(cells).map(([r, c]) => `${r},${c}`));
    cells = rules.play(cells, mv);
    const closed = rules.boxesClosed(cells).filter(([r, c]) => !before.has(`${r},${c}`));
    for (const [r, c] of closed) owners.set(`${r},${c}`, side);
    score[side] += closed.length;
    if (closed.length === 0) side = 1 - side;
  }
  return { cells, side, owners, score, over: rules.over(cells) };
}

export function positionAt(at = S.at) {
  return S.rules.notation(derive(at).cells);
}

export function levelOf(side) {
  return $(side === 0 ? "first" : "second").value;
}

/** A person against the computer: the games that can be rated. */
export function ratable() {
  return [levelOf(0), levelOf(1)].filter((l) => l === "human").length === 1;
}

/** Values stay hidden while a rated game is on. */
export function hidden() {
  return S.rated !== null && !S.rated.state.result;
}
