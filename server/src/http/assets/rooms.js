// "Play a friend": creates a room and shows a link per seat, or plays in
// one over a WebSocket. The server referees every move (seat, turn, the
// game's rules) and sends the whole state after each; the page only draws
// it, with the explorer's boards, in coordinates (b2, Ab2, a1–b1).
import { rulesFor } from "./rules.js";
import * as grid from "./grid.js";
import * as layers from "./layers.js";
import * as dots from "./dots.js";
import { best, describe, hint, initTheme, rankRange, shades } from "./values.js";
import { itemsOfVerdicts, recordedText, renderReview } from "./review.js";
import { identity, reservedName, saveName, savedName } from "./identity.js";

const BOARDS = { grid, layers, dots };
const SEATS = ["first", "second"];
const $ = (id) => document.getElementById(id);

const R = {
  games: [],
  room: "",
  token: "",
  socket: null,
  state: null, // the last state from the server
  pending: false, // a move sent, no answer yet
  retry: 0,
  opened: false, // connected at least once
  closed: false, // the room is gone: no reconnecting
};

/** A game's entry of `/api/v1/games` (rooms are only made for those). */
function entryOf(game) {
  return R.games.find((g) => g.game === game);
}

function seatWord(seat, entry) {
  const [a, b] = entry.sides;
  return seat === "first" ? `first (${a})` : `second (${b})`;
}

/** The board after the moves, with box owners for dots, and the seat
 * that made each move. */
function replay(rules, kind, start, history) {
  let cells = rules.parse(start);
  const movers = [];
  if (kind !== "dots") {
    let side = rules.toMove(cells) === "X" ? 0 : 1;
    for (const mv of history) {
      movers.push(side);
      cells = rules.play(cells, mv);
      side = 1 - side;
    }
    return { cells, won: rules.winLine(cells), owners: new Map(), movers };
  }
  const owners = new Map();
  for (const [r, c] of rules.boxesClosed(cells)) owners.set(`${r},${c}`, "?");
  let side = 0;
  for (const mv of history) {
    movers.push(side);
    const before = new Set(rules.boxesClosed(cells).map(([r, c]) => `${r},${c}`));
    cells = rules.play(cells, mv);
    const closed = rules.boxesClosed(cells).filter(([r, c]) => !before.has(`${r},${c}`));
    for (const [r, c] of closed) owners.set(`${r},${c}`, side);
    if (closed.length === 0) side = 1 - side;
  }
  return { cells, won: null, owners, movers };
}

/** The values of the moves of a report, as the boards draw them; where
 * some moves are unknown, none is best unless it reaches the most the
 * position may be. */
function valuesOf(report) {
  const values = new Map();
  const moves = report.moves;
  const strength = shades(moves);
  const ceiling = (report.unknown_moves || []).length > 0 ? rankRange(report)[1] : null;
  for (const m of moves) {
    values.set(m.move, {
      ...describe(m), strength: strength.get(m.move), best: best(m, moves, ceiling),
      hint: hint(m, moves, ceiling),
    });
  }
  return values;
}

function announce(text) {
  $("status").textContent = text;
}

/** "ann (X) played b2. Your move." — with the value where the room shows
 * values. */
function announceMove(s) {
  const entry = entryOf(s.game);
  const rules = rulesFor(entry.board);
  const d = replay(rules, entry.kind, s.start, s.history);
  const last = s.history.length - 1;
  const seat = SEATS[d.movers[last]];
  const who = seat === s.you ? "You" : `${s.players[seat].name} (${entry.sides[d.movers[last]]})`;
  let text = `${who} played ${rules.coord(s.history[last])}.`;
  if (s.result) {
    const w = s.result.winner;
    text += w === null ? " The game is over: a draw." : w === s.you ? " The game is over: you won." : ` The game is over: ${s.players[w].name} won.`;
  } else {
    text += s.to_move === s.you ? " Your move." : ` ${s.players[s.to_move].name} to move.`;
    if (s.values) text += ` The value for the player to move: ${describe(s.values).text}.`;
  }
  if (entry.kind === "dots") text += ` Score ${entry.sides[0]} ${s.points.first}, ${entry.sides[1]} ${s.points.second}.`;
  announce(text);
}

// ---- a room -------------------------------------------------------------------

function render() {
  const s = R.state;
  if (!s) return;
  const entry = entryOf(s.game);
  const rules = rulesFor(entry.board);
  const d = replay(rules, entry.kind, s.start, s.history);
  const mine = s.you !== "spectator" && s.to_move === s.you;
  const values = s.values ? valuesOf(s.values) : new Map();
  const board = $("board");
  board.className = `board board-${entry.kind}`;
  const active = document.activeElement;
  const focused = active && board.contains(active) ? active.dataset.move : undefined;
  BOARDS[entry.kind].render(board, {
    rules,
    cells: d.cells,
    owners: d.owners,
    values,
    winLine: d.won ? d.won.line : null,
    lastMove: s.history.length ? s.history[s.history.length - 1] : null,
    locked: !mine || R.pending,
    editing: false,
    playable: mine && !R.pending && !s.result,
    onPick,
  });
  if (focused !== undefined) {
    const again = board.querySelector(`[data-move="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }

  const [a, b] = entry.sides;
  if (entry.kind === "dots") {
    $("score").textContent = `Score: ${a} ${s.points.first}, ${b} ${s.points.second}`;
  } else $("score").textContent = "";

  let turn;
  if (s.result) {
    const w = s.result.winner;
    turn = w === null ? "game over: a draw"
      : w === s.you ? "game over: you won" : `game over: ${s.players[w].name} (${seatWord(w, entry)}) won`;
  } else if (s.you === "spectator") {
    turn = `${s.players[s.to_move].name} (${seatWord(s.to_move, entry)}) to move`;
  } else if (mine) {
    turn = `your move (you are ${seatWord(s.you, entry)})`;
  } else {
    turn = `waiting for ${s.players[s.to_move].name} (${seatWord(s.to_move, entry)})`;
  }
  $("turn").textContent = turn;
  $("turn").className = `value-line ${mine ? "v-win" : ""}`;

  const seats = $("players");
  seats.replaceChildren();
  for (const seat of ["first", "second"]) {
    const li = document.createElement("li");
    const p = s.players[seat];
    li.textContent = `${seatWord(seat, entry)}: ${p.name}${seat === s.you ? " (you)" : ""} · ${p.online ? "online" : "away"}`;
    li.className = p.online ? "online" : "away";
    seats.append(li);
  }
  if (s.spectators) {
    const li = document.createElement("li");
    li.textContent = `${s.spectators} watching`;
    seats.append(li);
  }

  const list = $("values");
  list.replaceChildren();
  $("values-title").hidden = !s.values;
  if (s.values) {
    for (const m of s.values.moves) {
      const v = values.get(m.move);
      const li = document.createElement("li");
      li.className = `move ${v.cls}${v.best ? " best" : ""}`;
      li.style.setProperty("--strength", String(v.strength));
      li.textContent = `${rules.coord(m.move)} ${v.text}`;
      list.append(li);
    }
  }

  const history = $("history");
  history.replaceChildren();
  s.history.forEach((mv, i) => {
    const li = document.createElement("li");
    const where = document.createElement("span");
    where.className = "coord";
    where.textContent = rules.coord(mv);
    li.append(`${entry.sides[d.movers[i]]} `, where);
    li.dataset.ply = String(i);
    li.dataset.move = mv;
    history.append(li);
  });

  $("review").hidden = !s.result;
  if (s.result && s.verdicts) {
    const names = SEATS.map((seat) => s.players[seat].name);
    const items = itemsOfVerdicts(s.verdicts, { who: (seat) => names[seat], coord: (mv) => rules.coord(mv) });
    renderReview($("review-body"), items, { dots: entry.kind === "dots", players: names });
    $("board-link").href = `/leaderboard?game=${encodeURIComponent(s.game)}`;
    // Every finished room game is recorded; a write the database refused
    // is retried, and the state comes again once it is written.
    $("record").textContent = s.recorded ? recordedText(s).trim()
      : "Not recorded yet: the leaderboard's database is busy, and the game is written as soon as it is free.";
  }
  // What a test (or a person) waits for: the page has the server's state
  // and no move of its own is in flight.
  document.body.dataset.state = R.pending ? "busy" : "idle";
  document.body.dataset.moves = String(s.history.length);
}

/** The server's words with the move sent (its notation, "0") named by its
 * cell, as the board shows it ("Aa1"). */
function named(text, mv) {
  if (mv === undefined || !R.state) return text;
  const rules = rulesFor(entryOf(R.state.game).board);
  const escaped = mv.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`\\bmove ${escaped}(?![\\w,])`, "g"), `move ${rules.coord(mv)}`);
}

function onPick(mv) {
  const s = R.state;
  if (!s || R.pending || s.result || s.you === "spectator" || s.to_move !== s.you) return;
  R.pending = true;
  R.sent = mv;
  render();
  R.socket.send(JSON.stringify({ type: "move", move: mv }));
}

function connect() {
  const params = new URLSearchParams();
  if (R.token) params.set("token", R.token);
  const name = savedName();
  if (name) params.set("name", name);
  params.set("player", identity());
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/v1/rooms/${encodeURIComponent(R.room)}/ws?${params}`);
  R.socket = socket;
  socket.addEventListener("open", () => { R.retry = 0; R.opened = true; });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      const before = R.state ? R.state.history.length : -1;
      R.state = message;
      if (message.history.length !== before) R.pending = false;
      if (message.history.length > before && before >= 0) announceMove(message);
      render();
    } else if (message.type === "error") {
      R.pending = false;
      announce(`Refused: ${named(message.error, R.sent)}`);
      render();
    }
  });
  socket.addEventListener("close", (event) => {
    if (R.socket !== socket) return;
    if (event.code === 1001 || R.closed) {
      R.closed = true;
      $("turn").textContent = event.reason || "the room closed";
      document.body.dataset.state = "idle";
      return;
    }
    if (!R.opened && R.retry >= 3) {
      $("turn").textContent = "no such room open (it may have expired)";
      document.body.dataset.state = "idle";
      return;
    }
    // Dropped: reconnect with the same token, the seat resumes.
    R.retry = Math.min(R.retry + 1, 6);
    $("turn").textContent = "reconnecting…";
    setTimeout(connect, 250 * 2 ** R.retry);
  });
}

function join(room, token) {
  R.room = room;
  R.token = token || "";
  $("room").hidden = false;
  document.body.dataset.view = "room";
  $("name").value = savedName();
  $("name").addEventListener("change", () => {
    const name = $("name").value.trim();
    $("name-note").hidden = !reservedName(name);
    $("name-note").textContent = `“${name}” is the computer's name: choose another.`;
    if (!saveName(name)) return;
    if (R.socket) {
      const old = R.socket;
      R.socket = null;
      old.close();
    }
    connect();
    announce("Name set.");
  });
  connect();
}

// The friend's seat comes with a one-time invite: claimed by a POST (a link
// preview fetching the link cannot take the seat), then the address holds
// the seat's token, so a reload comes back to the seat.
async function claimInvite(room, invite) {
  const response = await fetch(`/api/v1/rooms/${encodeURIComponent(room)}/claim`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ invite }),
  });
  const claimed = await response.json();
  if (!response.ok) {
    announce(`Could not take the seat: ${claimed.error}`);
    history.replaceState(null, "", `/play?room=${encodeURIComponent(room)}`);
    join(room, "");
    return;
  }
  history.replaceState(null, "", claimed.link);
  join(room, claimed.token);
}

// ---- a new room -------------------------------------------------------------

function showLinks(made, game) {
  const entry = entryOf(game);
  const full = (path) => `${location.origin}${path}`;
  $("link-first").value = full(made.links.first);
  $("link-second").value = full(made.links.second);
  $("link-watch").value = full(made.url);
  $("go-first").href = made.links.first;
  $("go-second").href = made.links.second;
  $("link-first-label").textContent = `First player (${entry.sides[0]})`;
  $("link-second-label").textContent = `Second player (${entry.sides[1]})`;
  $("links").hidden = false;
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", async () => {
      const field = $(button.dataset.copy);
      try {
        await navigator.clipboard.writeText(field.value);
        announce("Link copied.");
      } catch {
        field.select();
        announce("Select and copy the link.");
      }
    });
  }
  // The creator's board takes clicks: the first one takes the first seat
  // (its link), where the game is played.
  const rules = rulesFor(entry.board);
  BOARDS[entry.kind].render($("board"), {
    rules, cells: rules.parse(entry.start), owners: new Map(), values: new Map(),
    winLine: null, lastMove: null, locked: false, editing: false, playable: true,
    onPick() {
      location.href = made.links.first;
    },
  });
  announce(`Room ready for ${entry.title}: send the second link to your friend, and click the board to play first.`);
}

function showCreate() {
  document.body.dataset.view = "create";
  $("create").hidden = false;
  for (const entry of R.games) {
    const option = document.createElement("option");
    option.value = entry.game;
    option.textContent = entry.title;
    $("game").append(option);
  }
  $("create-name").value = savedName();
  const drawPreview = () => {
    const entry = entryOf($("game").value);
    const rules = rulesFor(entry.board);
    $("board").className = `board board-${entry.kind}`;
    BOARDS[entry.kind].render($("board"), {
      rules, cells: rules.parse(entry.start), owners: new Map(), values: new Map(),
      winLine: null, lastMove: null, locked: true, editing: false, playable: false, onPick() {},
    });
  };
  $("game").addEventListener("change", drawPreview);
  drawPreview();
  $("create").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("create-name").value.trim();
    if (!saveName(name)) {
      $("create-note").textContent = `“${name}” is the computer's name: choose another.`;
      $("create-note").classList.add("error");
      announce($("create-note").textContent);
      return;
    }
    document.body.dataset.state = "busy";
    const game = $("game").value;
    const response = await fetch("/api/v1/rooms", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ game, hints: $("hints").checked }),
    });
    const made = await response.json();
    document.body.dataset.state = "idle";
    if (!response.ok) {
      announce(`Could not create a room: ${made.error}`);
      return;
    }
    showLinks(made, game);
  });
  document.body.dataset.state = "idle";
}

async function main() {
  initTheme($("theme"));
  const listed = await (await fetch("/api/v1/games")).json();
  R.games = listed.games;
  const q = new URLSearchParams(location.search);
  if (q.get("room") && q.get("invite")) claimInvite(q.get("room"), q.get("invite"));
  else if (q.get("room")) join(q.get("room"), q.get("token"));
  else showCreate();
}

main();
