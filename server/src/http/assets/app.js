// The explorer: picks a game, keeps the history (undo/redo) and the URL,
// asks the API for the value of every move, and lets people and the
// computer play. Boards are drawn by one module per board kind.
import { rulesFor } from "./rules.js";
import { classicMove, randomMove } from "./players.js";
import * as grid from "./grid.js";
import * as layers from "./layers.js";
import * as dots from "./dots.js";
import { describe } from "./values.js";
import { recordFinished } from "./record.js";

const BOARDS = { grid, layers, dots };
const $ = (id) => document.getElementById(id);

const S = {
  games: [],
  searchSeconds: 0,
  entry: null, // an entry of /api/v1/games: { game, title, kind, board, sides, start, table }
  rules: null,
  start: "",
  moves: [],
  at: 0,
  answer: null, // { ok: true, json } | { ok: false, kind, error }
  line: null, // { at, moves, text }
  editing: false,
  editCells: null,
  busy: false,
  token: 0,
};

// ---- themes -------------------------------------------------------------

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  $("theme").value = theme;
}
function initialTheme() {
  const saved = localStorage.getItem("solvedb-theme");
  if (saved) return saved;
  if (matchMedia("(prefers-contrast: more)").matches) return "contrast";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

// ---- words ----------------------------------------------------------------

function gameLabel(entry) {
  return `${entry.title} (${entry.table ? "table" : "exact search"})`;
}

const SOURCES = {
  table: "from the table",
  forced: "settled by forced play (the rules)",
  search: "by exact live search",
};

function announce(text) {
  $("status").textContent = text;
}

// ---- the position -----------------------------------------------------------

function isDots() {
  return S.entry.kind === "dots";
}
function sideNames() {
  return S.entry.sides;
}

/** Replays the history to `at`: the board, the side to move, box owners, scores. */
function derive(at = S.at) {
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
    const edge = rules.edgeOf(mv);
    const before = new Set(rules.boxesClosed(cells).map(([r, c]) => `${r},${c}`));
    cells = rules.play(cells, mv);
    const closed = rules.boxesClosed(cells).filter(([r, c]) => !before.has(`${r},${c}`));
    for (const [r, c] of closed) owners.set(`${r},${c}`, side);
    score[side] += closed.length;
    if (closed.length === 0) side = 1 - side;
    void edge;
  }
  return { cells, side, owners, score, over: rules.over(cells) };
}

function notationOf(cells) {
  return S.rules.notation(cells);
}

function levelOf(side) {
  return $(side === 0 ? "first" : "second").value;
}

// ---- the URL ----------------------------------------------------------------

function writeUrl() {
  const q = new URLSearchParams();
  q.set("game", S.entry.game);
  q.set("start", S.start);
  if (S.moves.length) q.set("moves", S.moves.join(" "));
  if (S.at !== S.moves.length) q.set("at", String(S.at));
  q.set("first", $("first").value);
  q.set("second", $("second").value);
  history.replaceState(null, "", `?${q}`);
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  const game = q.get("game");
  const entry = S.games.find((g) => g.game === game) || S.games[0];
  const start = q.get("start") || entry.start;
  const moves = (q.get("moves") || "").split(" ").filter(Boolean);
  let at = q.has("at") ? Number(q.get("at")) : moves.length;
  if (!Number.isInteger(at) || at < 0 || at > moves.length) at = moves.length;
  for (const side of ["first", "second"]) {
    const level = q.get(side);
    if (level && [...$(side).options].some((o) => o.value === level)) $(side).value = level;
  }
  return { entry, start, moves, at };
}

// ---- talking to the server --------------------------------------------------

async function api(path, params) {
  const response = await fetch(`/api/v1/${path}?${new URLSearchParams(params)}`);
  const json = await response.json();
  return response.ok ? { ok: true, json } : { ok: false, status: response.status, ...json };
}

// ---- drawing ----------------------------------------------------------------

function render() {
  const d = S.editing ? { cells: S.editCells, owners: new Map(), side: 0 } : derive();
  const values = new Map();
  if (!S.editing && S.answer && S.answer.ok) {
    for (const m of S.answer.json.moves) values.set(m.move, describe(m));
  }
  const unknown = !S.editing && S.answer && !S.answer.ok && S.answer.kind === "budget";
  const [first, second] = sideNames();
  $("first-name").textContent = isDots() ? "Player A" : "X";
  $("second-name").textContent = isDots() ? "Player B" : "O";
  const view = {
    rules: S.rules,
    cells: d.cells,
    owners: d.owners || new Map(),
    values,
    winLine: d.won ? d.won.line : null,
    lastMove: S.editing || S.at === 0 ? null : S.moves[S.at - 1],
    locked: S.busy,
    editing: S.editing,
    // Without values (unknown within the budget, or still loading) the
    // legal moves can still be played.
    playable: !S.busy && !d.over,
    onPick,
  };
  const board = $("board");
  board.className = `board board-${S.entry.kind}`;
  board.setAttribute("aria-busy", String(S.busy));
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.move : undefined;
  BOARDS[S.entry.kind].render(board, view);
  if (focused !== undefined) {
    const again = board.querySelector(`[data-move="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }

  // Score (dots) or result.
  if (isDots() && !S.editing) {
    const unknownBoxes = [...d.owners.values()].filter((o) => o === "?").length;
    $("score").textContent = `score: ${first} ${d.score[0]}, ${second} ${d.score[1]}` +
      (unknownBoxes ? ` (${unknownBoxes} boxes from the edited start)` : "");
  } else if (!S.editing && d.won) {
    $("score").textContent = `${d.won.owner} wins`;
  } else if (!S.editing && d.over) {
    $("score").textContent = "draw";
  } else $("score").textContent = "";

  // Value and source.
  const who = sideNames()[d.side];
  let line = "";
  let source = "";
  if (S.editing) {
    line = "editing: click cells or edges, then press Done";
  } else if (!S.answer) {
    line = "asking…";
  } else if (S.answer.ok) {
    const a = S.answer.json;
    const value = describe(a);
    line = d.over ? `game over` : `${who} to move: ${value.text}`;
    source = `${SOURCES[a.source] || a.source}` + (d.over ? "" : ` · value for the player to move`);
  } else if (unknown) {
    line = `${who} to move: unknown within the search budget`;
    source = `the exact search (${S.searchSeconds} s) could not settle this position or its moves`;
  } else {
    line = `error: ${S.answer.error}`;
  }
  $("value").textContent = line;
  $("value").className = `value-line ${S.answer && S.answer.ok && !d.over ? describe(S.answer.json).cls : ""}`;
  $("source").textContent = source;
  $("notation").value = S.editing ? notationOf(S.editCells) : (S.answer && S.answer.ok ? S.answer.json.position : notationOf(d.cells));

  // Moves, best first.
  const list = $("moves");
  list.replaceChildren();
  if (!S.editing && S.answer && S.answer.ok) {
    for (const m of S.answer.json.moves) {
      const v = describe(m);
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = `move ${v.cls}`;
      b.dataset.move = m.move;
      b.textContent = `${m.move}: ${v.text}`;
      b.setAttribute("aria-disabled", String(S.busy));
      b.addEventListener("click", () => onPick(m.move));
      li.append(b);
      list.append(li);
    }
  } else if (unknown) {
    const li = document.createElement("li");
    li.textContent = "every move: unknown within the search budget";
    list.append(li);
  }

  $("undo").disabled = S.busy || S.editing || S.at === 0;
  $("redo").disabled = S.busy || S.editing || S.at === S.moves.length;
  $("edit").textContent = S.editing ? "Done" : "Edit position";
  $("edit").setAttribute("aria-pressed", String(S.editing));
  $("new").disabled = S.busy;
  $("mainline").disabled = S.busy || S.editing || d.over;
  const next = S.line && S.line.moves[S.at - S.line.at];
  $("step").disabled = S.busy || S.editing || !next;
  $("line").textContent = S.line ? S.line.text : "";
  // "idle" once the answer is in and no computer move is due: what a test
  // (or a person) waits for before the next move.
  const due = !S.editing && !d.over && S.at === S.moves.length && levelOf(d.side) !== "human";
  const asking = S.line && S.line.text === "asking…";
  document.body.dataset.state = S.editing || (S.answer && !S.busy && !due && !asking) ? "idle" : "busy";
}

// ---- play -------------------------------------------------------------------

async function refresh() {
  const token = ++S.token;
  S.answer = null;
  render();
  const d = derive();
  const answer = await api("probe", { game: S.entry.game, position: notationOf(d.cells) });
  if (token !== S.token) return;
  S.answer = answer;
  render();
  if (d.over && S.at === S.moves.length) {
    recordFinished(S.entry.game, S.start, S.moves, [levelOf(0), levelOf(1)]);
  }
  maybeComputer(token);
}

function describeMove(mv) {
  return isDots() ? S.rules.where(mv) : `${S.rules.where(Number(mv))} (cell ${mv})`;
}

function afterMoveText(d) {
  if (!isDots()) {
    if (d.won) return `${d.won.owner} wins.`;
    if (d.over) return "Draw.";
    return `${sideNames()[d.side]} to move.`;
  }
  if (d.over) {
    const [a, b] = d.score;
    return `Game over: A ${a}, B ${b}. ${a > b ? "A wins." : b > a ? "B wins." : "A tie."}`;
  }
  return `${sideNames()[d.side]} to move; score A ${d.score[0]}, B ${d.score[1]}.`;
}

function play(mv, note = "") {
  const before = derive();
  const who = sideNames()[before.side];
  if (S.line && S.line.moves[S.at - S.line.at] !== mv) S.line = null;
  S.moves = S.moves.slice(0, S.at);
  S.moves.push(mv);
  S.at = S.moves.length;
  writeUrl();
  const d = derive();
  announce(`${who} played ${describeMove(mv)}${note}. ${afterMoveText(d)}`);
  refresh();
}

function onPick(mv) {
  if (S.busy) return;
  if (S.editing) {
    if (isDots()) {
      const e = S.rules.edgeOf(mv);
      S.editCells[e] = S.editCells[e] ? 0 : 1;
    } else {
      const i = Number(mv);
      S.editCells[i] = { ".": "X", X: "O", O: "." }[S.editCells[i]];
    }
    render();
    return;
  }
  const d = derive();
  if (d.over) return;
  if (levelOf(d.side) !== "human") return; // the computer's turn
  if (!S.rules.moves(d.cells).includes(mv)) return;
  play(mv);
}

async function maybeComputer(token) {
  if (S.editing || S.at !== S.moves.length) return;
  const d = derive();
  if (d.over) return;
  const level = levelOf(d.side);
  if (level === "human") return;
  S.busy = true;
  render();
  await new Promise((r) => setTimeout(r, 300));
  if (token !== S.token) return;
  let mv;
  let note = "";
  const legal = S.rules.moves(d.cells);
  if (level === "perfect" && S.answer && S.answer.ok && S.answer.json.moves.length) {
    mv = S.answer.json.moves[0].move;
    note = ` (perfect: ${describe(S.answer.json.moves[0]).text})`;
  } else if (level === "perfect") {
    mv = classicMove(S.rules, d.cells);
    note = " (unknown within the search budget: the classic player's move, not known to be best)";
  } else if (level === "classic") {
    mv = classicMove(S.rules, d.cells);
  } else {
    mv = randomMove(legal);
  }
  S.busy = false;
  if (token !== S.token) return;
  play(mv, note);
}

/** Steps back to the last position where a person is to move. */
function undo() {
  if (S.at === 0) return;
  S.at--;
  while (S.at > 0 && levelOf(derive().side) !== "human") S.at--;
  writeUrl();
  announce(`Undone: ${afterMoveText(derive())}`);
  refresh();
}

function redo() {
  if (S.at === S.moves.length) return;
  S.at++;
  while (S.at < S.moves.length && levelOf(derive().side) !== "human") S.at++;
  writeUrl();
  announce(`Redone: ${afterMoveText(derive())}`);
  refresh();
}

function choose(entry, start = entry.start, moves = [], at = moves.length) {
  S.token++;
  S.busy = false;
  S.entry = entry;
  S.start = start;
  S.rules = rulesFor(entry.board);
  S.moves = moves;
  S.at = at;
  S.line = null;
  S.editing = false;
  $("game").value = entry.game;
  writeUrl();
  refresh();
}

async function toggleEdit() {
  if (!S.editing) {
    S.token++;
    S.busy = false;
    S.editing = true;
    S.editCells = derive().cells.slice();
    announce("Editing: set cells or edges, then press Done.");
    render();
    return;
  }
  const text = notationOf(S.editCells);
  // Not settled while the server checks the position (tests wait for "idle").
  document.body.dataset.state = "busy";
  const check = await api("check", { game: S.entry.game, position: text });
  if (!check.ok) {
    announce(`Not a legal position: ${check.error}`);
    $("value").textContent = `not legal: ${check.error}`;
    document.body.dataset.state = "idle";
    return;
  }
  announce("Position set.");
  choose(S.entry, check.json.position);
}

async function showLine() {
  const d = derive();
  const token = S.token;
  S.line = { at: S.at, moves: [], text: "asking…" };
  render();
  const answer = await api("mainline", { game: S.entry.game, position: notationOf(d.cells) });
  if (token !== S.token) return;
  if (!answer.ok) {
    S.line = { at: S.at, moves: [], text: answer.kind === "budget" ? "unknown within the search budget" : `error: ${answer.error}` };
  } else {
    const end = describe(answer.json);
    S.line = { at: S.at, moves: answer.json.moves, text: `${answer.json.moves.join(", ") || "(the game is over)"} — ${end.text}` };
  }
  announce(`Best line: ${S.line.text}`);
  render();
}

function stepLine() {
  const next = S.line && S.line.moves[S.at - S.line.at];
  if (next && !S.busy) play(next, " (best line)");
}

async function copyPosition() {
  const text = $("notation").value;
  try {
    await navigator.clipboard.writeText(text);
    announce(`Copied ${text}`);
  } catch {
    $("notation").select();
    announce("Select and copy the position from the field.");
  }
}

// ---- start ------------------------------------------------------------------

async function main() {
  applyTheme(initialTheme());
  $("theme").addEventListener("change", (e) => {
    localStorage.setItem("solvedb-theme", e.target.value);
    applyTheme(e.target.value);
    announce(`Theme: ${e.target.selectedOptions[0].textContent}`);
  });
  const listed = await api("games", {});
  S.games = listed.json.games;
  S.searchSeconds = listed.json.search_seconds;
  for (const entry of S.games) {
    const option = document.createElement("option");
    option.value = entry.game;
    option.textContent = gameLabel(entry);
    $("game").append(option);
  }
  $("game").addEventListener("change", (e) => {
    const entry = S.games.find((g) => g.game === e.target.value);
    choose(entry);
    announce(`New game: ${gameLabel(entry)}`);
  });
  $("new").addEventListener("click", () => {
    choose(S.entry);
    announce("New game.");
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("edit").addEventListener("click", toggleEdit);
  $("copy").addEventListener("click", copyPosition);
  $("mainline").addEventListener("click", showLine);
  $("step").addEventListener("click", stepLine);
  for (const side of ["first", "second"])
    $(side).addEventListener("change", () => {
      writeUrl();
      render();
      maybeComputer(S.token);
    });
  document.addEventListener("keydown", (e) => {
    if (!(e.ctrlKey || e.metaKey)) return;
    if (e.key === "z") { e.preventDefault(); undo(); }
    if (e.key === "y") { e.preventDefault(); redo(); }
  });
  const { entry, start, moves, at } = readUrl();
  choose(entry, start, moves, at);
}

main();
