// The explorer: picks a game, keeps the history (undo, redo, the browser's
// Back) and the URL, asks the API for the value of every move, lets people
// and the computer play (the computer's moves come from the server), and
// reviews every finished game against perfect play. Everything the URL says
// is checked by the rules on the server (/api/v1/check) before anything is
// drawn. The state and what follows from it are in state.js, the requests
// in api.js, rated games in rated.js; boards are drawn by one module per
// board kind.
import { coordOf, rulesFor } from "./rules.js";
import * as grid from "./grid.js";
import * as layers from "./layers.js";
import * as dots from "./dots.js";
import { forget } from "./focus.js";
import {
  best, describe, describeBounds, explain, hint, initTheme, legend, plural, rankRange, sourceText,
  rank, shades,
} from "./values.js";
import { itemsOfVerdicts, judge, renderReview } from "./review.js";
import { reservedName, saveName, savedName } from "./identity.js";
import {
  $, LEVELS, S, announce, coord, derive, hidden, isDots, levelOf, positionAt, ratable, sideNames,
  tableOnly, view,
} from "./state.js";
import { analysis, api } from "./api.js";
import { ratedMove, resignRated, resume, startRated } from "./rated.js";

const BOARDS = { grid, layers, dots };

/** One entry of the move list: a button with the move's place and value
 * (`v` from the board's values), `extra` classes, `hint` read aloud. */
function moveItem(move, v, extra, hint) {
  const li = document.createElement("li");
  const b = document.createElement("button");
  b.type = "button";
  b.className = `move ${v.cls}${extra}`;
  b.style.setProperty("--strength", String(v.strength));
  b.dataset.move = move;
  const where = document.createElement("span");
  where.className = "coord";
  where.textContent = coord(move);
  const what = document.createElement("span");
  what.textContent = v.text;
  b.append(where, " ", what);
  b.setAttribute("aria-label", `${S.rules.where(move)}: ${v.text}${hint ? `, ${hint}` : ""}`);
  b.setAttribute("aria-disabled", String(S.busy));
  b.addEventListener("click", () => onPick(move));
  li.append(b);
  return li;
}

// ---- the URL ----------------------------------------------------------------

function writeUrl(push) {
  if (push === null) return;
  const q = new URLSearchParams();
  q.set("game", S.entry.game);
  if (S.start !== S.entry.start) q.set("start", S.start);
  if (S.moves.length) q.set("moves", S.moves.join(" "));
  if (S.at !== S.moves.length) q.set("step", String(S.at));
  q.set("first", levelOf(0));
  q.set("second", levelOf(1));
  const url = `?${q}`;
  if (url === location.search) return;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

/** Shows what is wrong with a link instead of the board, with a way out. */
function problem(text, entry) {
  S.token++;
  S.problem = true;
  S.busy = false;
  $("problem-text").textContent = text;
  $("problem-start").textContent = `Back to the start of ${entry.title}`;
  $("problem-start").onclick = () => {
    announce(`New game: ${entry.title}.`);
    choose(entry, entry.start, [], 0, { push: true });
  };
  // The game menu names the link's game (the page may not have drawn it).
  if ($("game").value !== entry.game) $("game").value = entry.game;
  $("problem").hidden = false;
  $("explorer").hidden = true;
  $("board").replaceChildren();
  announce(""); // the problem is an alert of its own
  document.body.dataset.state = "idle";
}

/** A first visit's line saying what the page is; later visits skip it. */
function introduce() {
  if (localStorage.getItem("solvedb-visited")) return;
  $("intro").hidden = false;
  localStorage.setItem("solvedb-visited", "1");
}

/** Reads the URL and checks all of it — the game, the players, the start,
 * every move and the step — by the rules on the server, before anything is
 * drawn. */
async function loadUrl() {
  const q = new URLSearchParams(location.search);
  const name = q.get("game");
  const entry = name === null ? S.games[0] : S.games.find((g) => g.game === name);
  if (!entry) {
    return problem(`There is no game called “${name}” here: the games are in the Game menu.`, S.games[0]);
  }
  for (const [side, seat] of [["first", 0], ["second", 1]]) {
    const level = q.get(side);
    if (level !== null && !LEVELS.includes(level)) {
      return problem(
        `“${level}” is not a player: ${entry.sides[seat]} is a person (human) or the computer at perfect, classic or random.`,
        entry,
      );
    }
  }
  const start = q.get("start") ?? entry.start;
  const moves = (q.get("moves") || "").split(/\s+/).filter(Boolean);
  const stepText = q.get("step") ?? q.get("at");
  let at = moves.length;
  if (stepText !== null) {
    if (!/^\d+$/.test(stepText) || Number(stepText) > moves.length) {
      return problem(
        `Step “${stepText}” is not in this game: the link has ${plural(moves.length, "move")}, so its step is 0 to ${moves.length}.`,
        entry,
      );
    }
    at = Number(stepText);
  }
  S.checking = true;
  document.body.dataset.state = "busy";
  const check = await api("check", { game: entry.game, position: start, moves: moves.join(" ") });
  S.checking = false;
  if (!check.ok) {
    if (check.move !== undefined) {
      const mv = moves[check.move];
      return problem(
        `Move ${check.move + 1} of the link, ${coordOf(rulesFor(entry.board), mv)}, cannot be played: ${check.reason || check.error}.`,
        entry,
      );
    }
    return problem(`The link's position is not one of ${entry.title}: ${check.error}.`, entry);
  }
  for (const side of ["first", "second"]) {
    const level = q.get(side);
    if (level !== null) $(side).value = level;
  }
  const rules = rulesFor(entry.board);
  // The page replays what the server accepted; the two must agree.
  let cells;
  try {
    cells = rules.parse(check.json.position);
    for (const mv of check.json.moves) cells = rules.play(cells, mv);
  } catch (e) {
    return problem(`The page could not draw this position: ${e.message}.`, entry);
  }
  if (rules.notation(cells) !== check.json.final) {
    return problem("The page and the server do not agree on this position: please report it.", entry);
  }
  choose(entry, check.json.position, check.json.moves, at, { push: null });
}

// ---- drawing ----------------------------------------------------------------

/** A bound of the API's `bounds` on the order of `rank`. */
function rankBound(b) {
  return typeof b === "number" ? b : rank(b);
}

/** The values a board and the move list show: text, tag, colour, shade,
 * whether best, and a hint ("the longest defence"). */
function valuesOf(answer) {
  const values = new Map();
  if (answer && !answer.ok && answer.bounds && !hidden()) {
    // A search that stopped: each move's bounds, the settled ones with
    // their colour in full.
    const proven = answer.best_move || null;
    for (const m of answer.bounds.moves) {
      const b = describeBounds(m);
      const best = m.move === proven;
      values.set(m.move, {
        ...b, lower: m.lower, upper: m.upper, strength: b.exact ? 0.6 : 0.35, best, hint: best ? "proven best" : "",
      });
    }
    return values;
  }
  if (!answer || !answer.ok || hidden()) return values;
  const moves = answer.json.moves;
  const strength = shades(moves);
  // Where some moves are unknown, a move is still proven best when the
  // least it may be reaches the most the position may be (a win in one
  // off the strategy): the unknown moves can do no better than that.
  const unknown = (answer.json.unknown_moves || []).length > 0;
  const ceiling = unknown ? rankRange(answer.json)[1] : null;
  for (const m of moves) {
    values.set(m.move, {
      ...describe(m),
      strength: strength.get(m.move),
      best: best(m, moves, ceiling),
      hint: hint(m, moves, ceiling),
    });
  }
  return values;
}

/** The game's result in words, once over. */
function resultText(d) {
  if (isDots()) {
    const [a, b] = d.score;
    const [first, second] = sideNames();
    const winner = a > b ? `${first} wins` : b > a ? `${second} wins` : "A tie";
    return `${winner}, ${Math.max(a, b)} to ${Math.min(a, b)}`;
  }
  return d.won ? `${d.won.owner} wins` : "Draw";
}

/** Whether the computer is to move in `d` (the position shown, at the
 * end of the moves played, outside the editor and a rated game). */
function computerDue(d) {
  return !S.editing && !S.rated && !d.over && S.at === S.moves.length && levelOf(d.side) !== "human";
}

function render() {
  if (S.problem) return;
  const d = S.editing ? { cells: S.editCells, owners: new Map(), side: 0 } : derive();
  const values = S.editing ? new Map() : valuesOf(S.answer);
  const unknown = !S.editing && S.answer && !S.answer.ok && S.answer.kind === "budget";
  const [first, second] = sideNames();
  const rated = hidden();
  $("first-name").textContent = first;
  $("second-name").textContent = second;
  const view = {
    rules: S.rules,
    cells: d.cells,
    owners: d.owners || new Map(),
    values,
    winLine: d.won ? d.won.line : null,
    lastMove: S.editing || S.at === 0 ? null : S.moves[S.at - 1],
    locked: S.busy,
    editing: S.editing,
    // Without values (unknown within the budget, still loading, or a
    // rated game) the legal moves can still be played.
    playable: !S.busy && !d.over && (!rated || levelOf(d.side) === "human"),
    onPick,
  };
  const board = $("board");
  board.className = `board board-${S.entry.kind}`;
  board.setAttribute("aria-busy", String(S.busy || S.asking > 0));
  const active = document.activeElement;
  const focused = active && board.contains(active) ? active.dataset.move : undefined;
  BOARDS[S.entry.kind].render(board, view);
  if (focused !== undefined) {
    const again = board.querySelector(`[data-move="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }

  // Score (dots) and result.
  if (isDots() && !S.editing) {
    const unclaimed = [...d.owners.values()].filter((o) => o === "?").length;
    $("score").textContent = (d.over ? `${resultText(d)}. ` : "") + `Score: ${first} ${d.score[0]}, ${second} ${d.score[1]}` +
      (unclaimed ? ` (and ${plural(unclaimed, "box", "boxes")} taken before the edited start)` : "");
  } else if (!S.editing && d.over) {
    $("score").textContent = resultText(d);
  } else $("score").textContent = "";

  // The value, what it means, where it came from.
  const who = sideNames()[d.side];
  const other = sideNames()[1 - d.side];
  let line = "";
  let cls = "";
  let meaning = "";
  let source = "";
  if (S.editing) {
    line = "Editing: click cells or edges, then press Done";
  } else if (d.over) {
    line = `Game over: ${resultText(d)}`;
    cls = "over";
    meaning = S.at > 0 ? "The review below shows each move against perfect play." : "";
  } else if (rated) {
    const mine = levelOf(d.side) === "human";
    line = mine ? `Rated game: your move (${who})` : `Rated game: the computer (${who}) is thinking…`;
    meaning = "The values stay hidden until the end of a rated game.";
  } else if (!S.answer) {
    line = tableOnly(S.entry) ? `${who} to move: asking…` : `${who} to move: searching…`;
    meaning = tableOnly(S.entry) ? "" : `An exact search runs for up to ${S.searchSeconds} s.`;
  } else if (S.answer.ok) {
    const value = describe(S.answer.json);
    line = `${who} to move: ${value.text}`;
    cls = value.cls;
    meaning = explain(S.answer.json, who, other);
    source = sourceText(S.answer.json);
    // The moves the server's search valued beyond the table's answer
    // (now, or earlier for a position it kept).
    const searched = (S.answer.json.searched_moves || []).length;
    if (searched > 0) {
      const one = searched === 1;
      source += ` The ${one ? "value" : "values"} of ${plural(searched, "other move")} ` +
        `${one ? "was" : "were"} worked out by an exact search.`;
    }
    const untagged = S.answer.json.unknown_moves || [];
    if (untagged.length && S.answer.streaming) {
      meaning += ` Searching the ${plural(untagged.length, "cell")} without a tag within the time limit: ` +
        "the values it settles show when it ends.";
    } else if (untagged.length) {
      meaning += ` ${plural(untagged.length, "cell")} without a tag: neither the proved strategy, the ` +
        "opening table's proofs nor the search within its time limit settle those moves, so their values " +
        "are not known here.";
    }
  } else if (unknown && S.answer.bounds) {
    const value = describeBounds(S.answer.bounds);
    // The range in its short form, so the line stays one line beside a wide
    // board; the meaning spells it out in at most three lines, the room the
    // page keeps for it.
    line = `${who} to move: ${value.exact ? value.text : `${value.short} (not settled)`}`;
    cls = value.exact ? value.cls : "";
    // Time or the node budget may have stopped it: name the limits, not one.
    meaning = S.answer.streaming
      ? "Searching: each move shows the range proved so far, narrowing as moves settle."
      : value.exact
      ? "The value is proven; the moves not settled within the search limit show the range proved for each."
      : `Stopped at the budget before settling: the value is ${value.text.replace(" (not settled)", "")}; ` +
        `each move shows its range.`;
    if (S.answer.best_move) meaning += ` ${coord(S.answer.best_move)} is proven best.`;
  } else if (unknown) {
    // One line for the value, even beside Qubic's wide board: the budget
    // is named below.
    line = `${who} to move: unknown`;
    meaning = `The exact search reached its budget before it settled this position; later positions are answered.`;
  } else {
    line = `Error: ${S.answer.error}`;
  }
  $("value").textContent = line;
  $("value").className = `value-line ${cls}`;
  $("explain").textContent = meaning;
  // The server's count of searches, after where a searched answer came
  // from (a range's own lines are full: it keeps to them).
  if (source && S.answer && S.answer.ok && S.answer.json.source !== "table" && S.searches !== null) {
    source = `${source} Live searches run by the server so far: ${S.searches}.`.trim();
  }
  $("source").textContent = source;
  // A searched game keeps three lines for what its answer means, so the
  // moves do not jump when a long answer replaces the progress line.
  $("panel").classList.toggle("searched", !tableOnly(S.entry));
  const searching = S.asking > 0 && !tableOnly(S.entry);
  $("progress").classList.toggle("on", searching);
  $("progress").hidden = !searching;

  // The position field, unless someone is typing in it.
  if (document.activeElement !== $("notation")) {
    $("notation").value = S.editing ? S.rules.notation(S.editCells) : S.rules.notation(d.cells);
  }

  // Moves, best first: kept in place while the next answer comes, so
  // nothing below jumps.
  const list = $("moves");
  const keep = list.offsetHeight;
  list.replaceChildren();
  $("moves-title").hidden = d.over && !S.editing;
  list.hidden = d.over && !S.editing;
  if (!S.editing && rated) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "Hidden during a rated game.";
    list.append(li);
  } else if (!S.editing && S.answer && S.answer.ok) {
    for (const m of S.answer.json.moves) {
      const v = values.get(m.move);
      list.append(moveItem(m.move, v, v.best ? " best" : "", v.hint));
    }
  } else if (unknown && S.answer.bounds) {
    // What is proven first: by the bottom of each move's range (an exact
    // value is its own bottom), exact values before ranges with the same
    // bottom, then by the top.
    const exact = (m) => (values.get(m.move).exact ? 1 : 0);
    const moves = [...S.answer.bounds.moves].sort((a, b) =>
      rankBound(b.lower) - rankBound(a.lower) || exact(b) - exact(a) ||
      rankBound(b.upper) - rankBound(a.upper));
    for (const m of moves) {
      const v = values.get(m.move);
      list.append(moveItem(m.move, v, v.best ? " best" : "", v.hint));
    }
  } else if (unknown) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "Every move: unknown within the search budget.";
    list.append(li);
  }
  list.style.minHeight = !S.answer && !S.editing && !d.over ? `${keep}px` : "";

  // The legend: a line of tags, and what they mean at more length.
  const items = $("legend-items");
  if (items.dataset.kind !== S.entry.kind) {
    items.dataset.kind = S.entry.kind;
    const swatch = (c, tag) => {
      const t = document.createElement("span");
      t.className = `swatch ${c}`;
      t.textContent = tag;
      return t;
    };
    const entries = legend(isDots());
    items.replaceChildren(...entries.map(([c, tag, , text]) => {
      const li = document.createElement("li");
      li.append(swatch(c, tag), ` ${text}`);
      return li;
    }));
    $("legend-line").replaceChildren(...entries.flatMap(([c, tag, short], i) =>
      [swatch(c, tag), ` ${short}${i + 1 < entries.length ? " · " : ""}`]));
  }

  // The review.
  $("review").hidden = !(d.over && !S.editing && (S.review || S.reviewing));
  if (d.over && S.review) {
    renderReview($("review-body"), S.review, { dots: isDots(), players: sideNames() });
  } else if (S.reviewing) {
    $("review-body").textContent = "Reviewing…";
  }

  // The best line.
  renderLine(d);

  // Controls.
  const locked = S.busy || S.editing || rated;
  $("undo").disabled = locked || S.at === 0;
  $("redo").disabled = locked || S.at === S.moves.length;
  $("edit").textContent = S.editing ? "Done" : "Edit position";
  $("edit").setAttribute("aria-pressed", String(S.editing));
  $("edit").disabled = S.busy || rated;
  $("new").disabled = S.busy;
  $("mainline").disabled = locked || d.over;
  const next = S.line && S.line.moves[S.at - S.line.at];
  $("step").disabled = locked || !next;
  $("load-button").disabled = locked;
  $("notation").readOnly = locked;
  $("rated-box").hidden = !(ratable() || S.rated);
  $("rated").checked = S.rated !== null;
  $("rated").disabled = S.busy;
  // The name stays editable: a rated game under way keeps the name it
  // began with (the note says so), the next one takes the new one.

  // "idle" once the answer is in and nothing is due: what a test (or a
  // person) waits for before the next move.
  // A streamed answer (bounds, or a table's answer whose open moves are
  // still searched) is not settled: the request is still in flight.
  const due = computerDue(d);
  const settled = S.editing ||
    ((S.answer || rated) && !S.asking && !S.busy && !due && !S.lineAsking && !S.reviewing && !S.checking);
  document.body.dataset.state = settled ? "idle" : "busy";
}

/** The best line: one button per move (who plays where), the one shown
 * on the board marked; a click goes there. */
function renderLine(d) {
  const list = $("line-moves");
  list.replaceChildren();
  $("line-end").textContent = "";
  if (!S.line) return;
  if (S.lineAsking) {
    $("line-end").textContent = "asking…";
    return;
  }
  if (S.line.error) {
    $("line-end").textContent = S.line.error;
    return;
  }
  const sides = sidesAlong(S.line.at, S.line.moves);
  S.line.moves.forEach((mv, k) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "line-move";
    b.dataset.ply = String(k);
    b.textContent = `${sideNames()[sides[k]]} ${coord(mv)}`;
    b.setAttribute("aria-label", `move ${S.line.at + k + 1}: ${sideNames()[sides[k]]} ${S.rules.where(mv)}`);
    if (S.at === S.line.at + k + 1) b.setAttribute("aria-current", "step");
    b.disabled = S.busy || S.editing || hidden();
    b.addEventListener("click", () => goLine(k));
    li.append(b);
    list.append(li);
  });
  const end = S.line.end ? describe(S.line.end).text : "";
  $("line-end").textContent = S.line.moves.length
    ? `${sideNames()[derive(S.line.at).side]} to move at its start: ${end}.`
    : "The game is over.";
  void d;
}

/** The side to move before each of `moves`, played from step `at`. */
function sidesAlong(at, moves) {
  const d = derive(at);
  let cells = d.cells;
  let side = d.side;
  const out = [];
  for (const mv of moves) {
    out.push(side);
    if (isDots()) {
      const closes = S.rules.closes(cells, S.rules.edgeOf(mv));
      cells = S.rules.play(cells, mv);
      if (closes === 0) side = 1 - side;
    } else side = 1 - side;
  }
  return out;
}

// ---- progress ---------------------------------------------------------------

let ticking = 0;
function tick() {
  if (ticking) return;
  ticking = setInterval(() => {
    if (!S.asking) {
      clearInterval(ticking);
      ticking = 0;
      return;
    }
    const seconds = (performance.now() - S.asking) / 1000;
    const limit = S.searchSeconds || 3;
    $("progress-bar").value = Math.min(1, seconds / limit);
    $("progress-text").textContent = `${seconds.toFixed(1)} s of at most ${limit} s`;
  }, 100);
}

// ---- play -------------------------------------------------------------------

/** Says what just happened, with the new value, once it is known. */
function announceMove() {
  if (!S.pending) return;
  const d = derive();
  let after;
  if (d.over) after = `${resultText(d)}.`;
  else if (hidden()) after = levelOf(d.side) === "human" ? "Your move." : "";
  else if (S.answer && S.answer.ok) after = `${sideNames()[d.side]} to move: ${describe(S.answer.json).text}.`;
  else if (S.answer && S.answer.kind === "budget" && S.answer.bounds) after = `${sideNames()[d.side]} to move: ${describeBounds(S.answer.bounds).text}.`;
  else if (S.answer && S.answer.kind === "budget") after = `${sideNames()[d.side]} to move: unknown within the search budget.`;
  else after = `${sideNames()[d.side]} to move.`;
  if (isDots() && !d.over) after += ` Score ${sideNames()[0]} ${d.score[0]}, ${sideNames()[1]} ${d.score[1]}.`;
  announce(`${S.pending} ${after}`.trim());
  S.pending = "";
}

async function refresh() {
  const token = ++S.token;
  S.review = null;
  const d = derive();
  const position = S.rules.notation(d.cells);
  S.answer = hidden() ? null : S.answers.get(position) || null;
  if (!S.answer && !hidden()) {
    const started = performance.now();
    S.asking = started;
    tick();
    render();
    const params = { game: S.entry.game, position };
    const due = computerDue(d);
    // Where the server searches, each move's range shows as it narrows.
    const answer = tableOnly(S.entry)
      ? await api("probe", params)
      : await analysis(params, (partial) => {
        if (token !== S.token) return false;
        // A table's answer, its open moves still searched: where the
        // computer is to move, its best move is all it needs (the search
        // stops); else the value is known, so the move just made is
        // announced now and the rest comes when the search ends.
        if (partial.ok && due) return true;
        S.answer = partial;
        render();
        if (partial.ok) announceMove();
        return false;
      });
    if (S.asking === started) S.asking = 0;
    if (token !== S.token) return;
    // A table's answer taken early for the computer is not kept: the
    // position shows every move's value when it is seen again.
    if ((answer.ok && !answer.early) || answer.kind === "budget") remember(position, answer);
    S.answer = answer;
  }
  render();
  announceMove();
  if (d.over && S.at === S.moves.length && S.at > 0) await review(token);
  maybeComputer(token);
}

function remember(position, answer) {
  if (S.answers.size > 5000) S.answers.clear();
  S.answers.set(position, answer);
}

/** Each move of the finished game against perfect play: from the rated
 * game's verdicts, or from the values of every position (asked now where
 * the page has not seen them). */
async function review(token) {
  if (S.rated && S.rated.state.result && S.rated.state.verdicts) {
    S.review = itemsOfVerdicts(S.rated.state.verdicts, { who: (seat) => sideNames()[seat], coord });
    render();
    return;
  }
  S.reviewing = true;
  render();
  // The answer at every position of the game, the last one included: a
  // move's value is read from the position it was played in, or from the
  // value proved of the position it led to.
  const answers = [];
  for (let i = 0; i <= S.at; i++) {
    const position = S.rules.notation(derive(i).cells);
    let answer = S.answers.get(position);
    if (!answer) {
      $("review-body").textContent = `Reviewing: move ${Math.min(i + 1, S.at)} of ${S.at}…`;
      answer = await api("probe", { game: S.entry.game, position });
      if (token !== S.token) {
        S.reviewing = false;
        return;
      }
      if (answer.ok || answer.kind === "budget") remember(position, answer);
    }
    answers.push(answer);
  }
  const items = [];
  for (let i = 0; i < S.at; i++) {
    const d = derive(i);
    const mv = S.moves[i];
    const item = { ply: i, seat: d.side, who: sideNames()[d.side], coord: coord(mv), kept: null };
    Object.assign(item, judge(answers[i], answers[i + 1], mv, { dots: isDots(), coord }));
    items.push(item);
  }
  S.reviewing = false;
  S.review = items;
  render();
}

function play(mv, note = "", { computer = false } = {}) {
  const before = derive();
  const who = sideNames()[before.side];
  if (S.line && S.line.moves[S.at - S.line.at] !== mv) S.line = null;
  S.moves = S.moves.slice(0, S.at);
  S.moves.push(mv);
  S.at = S.moves.length;
  // A person's move is a step of the browser's history; the computer's
  // answer joins it, so Back goes to the person's last turn.
  writeUrl(!computer);
  S.pending = `${who} played ${coord(mv)}${note}.`;
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
  if (d.over || S.at !== S.moves.length && hidden()) return;
  if (levelOf(d.side) !== "human") return; // the computer's turn
  if (!S.rules.moves(d.cells).includes(mv)) return;
  if (S.rated && !S.rated.state.result) {
    ratedMove(mv);
    return;
  }
  play(mv);
}

async function maybeComputer(token) {
  const d = derive();
  if (S.busy || !computerDue(d)) return;
  const level = levelOf(d.side);
  S.busy = true;
  render();
  await new Promise((r) => setTimeout(r, 250));
  if (token !== S.token) return;
  let mv;
  let note = "";
  if (level === "perfect" && S.answer && S.answer.ok && S.answer.json.moves.length) {
    const { moves, unknown_moves: unknown = [] } = S.answer.json;
    mv = moves[0].move;
    // A loss known only by bounds: the largest bound is the longest
    // resistance known, not a proved longest one.
    const ceiling = unknown.length ? rankRange(S.answer.json)[1] : null;
    const known = hint(moves[0], moves, ceiling) === "the longest resistance known";
    note = ` (${known ? "the longest resistance known" : "perfect"}: ${describe(moves[0]).text})`;
  } else if (level === "perfect" && S.answer && S.answer.best_move) {
    // The search stopped, but what it proved holds a best move.
    mv = S.answer.best_move;
    const b = S.answer.bounds.moves.find((m) => m.move === mv);
    note = ` (perfect: proven best, ${describeBounds(b).text})`;
  } else {
    const asked = await api("computer", { game: S.entry.game, position: S.rules.notation(d.cells), level });
    if (token !== S.token) return;
    if (!asked.ok) {
      S.busy = false;
      announce(`The computer could not move: ${asked.error}`);
      render();
      return;
    }
    mv = asked.json.move;
    if (level === "perfect" && asked.json.by === "perfect") note = " (perfect: proven best)";
    else if (level === "perfect") {
      note = " (the perfect player fell back to the classic player: no move was proven best within the search limit)";
    }
    else note = ` (${level})`;
  }
  S.busy = false;
  play(mv, note, { computer: true });
}

/** Steps back to the last position where a person is to move. */
function undo() {
  if (S.at === 0 || hidden()) return;
  S.at--;
  while (S.at > 0 && levelOf(derive().side) !== "human") S.at--;
  writeUrl(true);
  S.pending = `Undone to move ${S.at}.`;
  refresh();
}

function redo() {
  if (S.at === S.moves.length || hidden()) return;
  S.at++;
  while (S.at < S.moves.length && levelOf(derive().side) !== "human") S.at++;
  writeUrl(true);
  S.pending = `Redone to move ${S.at}.`;
  refresh();
}

/** Shows `entry` from `start` after `moves` (at step `at`); `push`: a new
 * step of the browser's history (true), this one rewritten (false), or
 * the URL as it is (null). A rated game still going is resigned. */
function choose(entry, start = entry.start, moves = [], at = moves.length, { push = true } = {}) {
  if (S.rated && !S.rated.state.result) resignRated();
  S.rated = null;
  S.token++;
  S.busy = false;
  S.problem = false;
  $("problem").hidden = true;
  $("explorer").hidden = false;
  document.title = "solvedb explorer";
  if (!S.entry || S.entry.game !== entry.game) {
    S.answers.clear();
    forget($("board"));
  }
  S.entry = entry;
  S.start = start;
  S.rules = rulesFor(entry.board);
  S.moves = moves;
  S.at = at;
  S.line = null;
  S.lineAsking = false;
  S.editing = false;
  S.reviewing = false;
  $("game").value = entry.game;
  writeUrl(push);
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
  const text = S.rules.notation(S.editCells);
  // Not settled while the server checks the position (tests wait for "idle").
  document.body.dataset.state = "busy";
  const check = await api("check", { game: S.entry.game, position: text });
  if (!check.ok) {
    announce(`Not a legal position: ${check.error}`);
    $("value").textContent = `Not legal: ${check.error}`;
    document.body.dataset.state = "idle";
    return;
  }
  announce("Position set.");
  choose(S.entry, check.json.position, [], 0);
}

/** The position field's Load: a pasted position (or moves from the start),
 * checked by the server. */
async function load(event) {
  event.preventDefault();
  const text = $("notation").value.trim();
  const note = $("load-note");
  if (!text) return;
  document.body.dataset.state = "busy";
  const check = await api("check", { game: S.entry.game, position: text });
  if (!check.ok) {
    note.textContent = `Not a position of ${S.entry.title}: ${check.error}.`;
    note.classList.add("error");
    announce(note.textContent);
    document.body.dataset.state = "idle";
    return;
  }
  note.textContent = "Loaded. Paste a position or a list of moves from the start, then Load.";
  note.classList.remove("error");
  $("notation").blur();
  announce(`Loaded ${check.json.position}.`);
  choose(S.entry, check.json.position, [], 0);
}

async function showLine() {
  const token = S.token;
  S.line = { at: S.at, moves: [], end: null, error: "" };
  S.lineAsking = true;
  render();
  const answer = await api("mainline", { game: S.entry.game, position: positionAt() });
  if (token !== S.token) return;
  S.lineAsking = false;
  if (!answer.ok) {
    S.line.error = answer.kind === "budget" ? "Unknown within the search budget." : `Error: ${answer.error}`;
    announce(`Best line: ${S.line.error}`);
  } else {
    S.line.moves = answer.json.moves;
    S.line.end = answer.json;
    const sides = sidesAlong(S.line.at, S.line.moves);
    const words = S.line.moves.map((mv, k) => `${sideNames()[sides[k]]} ${coord(mv)}`).join(", ");
    announce(`Best line: ${words || "the game is over"}; ${describe(answer.json).text}.`);
  }
  render();
}

/** Goes to move `k` of the best line: the line becomes the history after
 * its start, so Undo and Redo walk along it. */
function goLine(k) {
  if (!S.line || S.busy) return;
  S.moves = S.moves.slice(0, S.line.at).concat(S.line.moves);
  S.at = S.line.at + k + 1;
  writeUrl(true);
  const d = derive(S.at - 1);
  S.pending = `Best line, move ${S.at}: ${sideNames()[d.side]} ${coord(S.moves[S.at - 1])}.`;
  refresh();
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
  Object.assign(view, { render, refresh, writeUrl });
  initTheme($("theme"), (name) => announce(`Theme: ${name}`));
  const listed = await api("games", {});
  if (!listed.ok) {
    $("value").textContent = `The server could not list its games: ${listed.error}`;
    document.body.dataset.state = "idle";
    return;
  }
  S.games = listed.json.games;
  S.searchSeconds = listed.json.search_seconds;
  const groups = [
    ["Answered from a table", S.games.filter(tableOnly)],
    ["A proved strategy from a table, other positions searched live", S.games.filter((g) => g.table && !tableOnly(g))],
    [`Searched live (early positions may be unknown within ${S.searchSeconds} s)`, S.games.filter((g) => !g.table)],
  ];
  for (const [label, entries] of groups) {
    if (!entries.length) continue;
    const group = document.createElement("optgroup");
    group.label = label;
    for (const entry of entries) {
      const option = document.createElement("option");
      option.value = entry.game;
      option.textContent = entry.title;
      group.append(option);
    }
    $("game").append(group);
  }
  $("game").addEventListener("change", (e) => {
    const entry = S.games.find((g) => g.game === e.target.value);
    choose(entry);
    announce(`New game: ${entry.title}.`);
  });
  $("new").addEventListener("click", () => {
    const again = $("rated").checked && ratable();
    choose(S.entry);
    if (again) startRated();
    else announce("New game.");
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("edit").addEventListener("click", toggleEdit);
  $("copy").addEventListener("click", copyPosition);
  $("load").addEventListener("submit", load);
  $("mainline").addEventListener("click", showLine);
  $("step").addEventListener("click", stepLine);
  $("name").value = savedName();
  $("legend-more").open = localStorage.getItem("solvedb-legend") === "open";
  $("legend-more").addEventListener("toggle", () =>
    localStorage.setItem("solvedb-legend", $("legend-more").open ? "open" : "closed"));
  $("name").addEventListener("change", () => {
    const name = $("name").value.trim();
    $("rated-note").textContent = reservedName(name) ? `“${name}” is the computer's name: choose another.` : "";
    if (!reservedName(name)) {
      saveName(name);
      if (S.rated && !S.rated.state.result) {
        $("rated-note").textContent = "Saved: this rated game keeps the name it began with; the next one takes the new name.";
      }
    }
  });
  $("rated").addEventListener("change", (e) => {
    if (e.target.checked) startRated();
    else if (S.rated) {
      if (!S.rated.state.result) resignRated();
      S.rated = null;
      refresh();
    }
  });
  for (const side of ["first", "second"])
    $(side).addEventListener("change", () => {
      if (S.rated && !S.rated.state.result) {
        resignRated();
        S.rated = null;
        refresh();
      }
      writeUrl(false);
      render();
      maybeComputer(S.token);
    });
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
    if (e.key === "?" && !typing) {
      e.preventDefault();
      $("keys").open = !$("keys").open;
      return;
    }
    if (!(e.ctrlKey || e.metaKey) || typing) return;
    if (e.key === "z") { e.preventDefault(); undo(); }
    if (e.key === "y") { e.preventDefault(); redo(); }
  });
  addEventListener("popstate", () => loadUrl());
  introduce();
  await loadUrl();
  await resume();
}

main();
