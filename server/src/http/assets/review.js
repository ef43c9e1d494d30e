// A finished game against perfect play, as the explorer and rooms show it:
// which move changed the result, what would have held, and every move.
import { costText, describe, plural } from "./values.js";

/** What one move did. `item`: { ply, seat, who, coord, kept, cost,
 * costMost, before, best } — `costMost` the most it may have cost where
 * only a range is proved, `before` the value of the position it was
 * played in and `best` the best move there ({ coord, text }), where
 * known. */
function verdictText(item, dots) {
  if (item.kept === null || item.kept === undefined) return "unknown within the search budget";
  if (item.kept) {
    if (!item.before) return "kept the value";
    if (dots) return `kept the value (${describe(item.before).text})`;
    return `kept the ${item.before.result} (${describe(item.before).text})`;
  }
  let text = costText(dots, item.cost, item.before, item.costMost);
  if (item.best) text += `; ${item.best.coord} would have held it (${item.best.text})`;
  return text;
}

function line(item, dots) {
  const li = document.createElement("li");
  li.value = item.ply + 1;
  li.dataset.ply = String(item.ply);
  const move = document.createElement("span");
  move.className = "coord";
  move.textContent = `${item.who} ${item.coord}`;
  li.append(move, ` — ${verdictText(item, dots)}`);
  if (item.kept === false) li.classList.add("missed");
  return li;
}

/** Fills `container` with the review of `items` (in order); `players` the
 * names of the two seats, `dots` whether values are box margins. */
export function renderReview(container, items, { dots, players }) {
  const summary = document.createElement("p");
  summary.className = "summary";
  const missed = items.filter((i) => i.kept === false);
  const turning = missed[0];
  if (!items.length) {
    summary.textContent = "No moves were played.";
  } else if (!turning) {
    const open = items.filter((i) => i.kept === null || i.kept === undefined).length;
    summary.textContent = open
      ? `No move is proved to have given anything away, but ${plural(open, "move")} could not be judged: ` +
        "the search did not settle the values around them."
      : "Every move kept the value: perfect play from start to end.";
  } else {
    summary.textContent = `The result changed at move ${turning.ply + 1}: ${turning.who} ${turning.coord} ${verdictText(turning, dots)}.`;
  }
  const counts = document.createElement("p");
  counts.className = "source";
  counts.textContent = players
    .map((name, seat) => {
      const all = items.filter((i) => i.seat === seat);
      const mine = all.filter((i) => i.kept !== null && i.kept !== undefined);
      const open = all.length - mine.length;
      return `${name} kept the value in ${mine.filter((i) => i.kept).length} of ${plural(mine.length, "move")}` +
        (open ? ` (${open} not judged)` : "");
    })
    .join("; ") + ".";
  const parts = [summary, counts];
  if (missed.length) {
    const list = document.createElement("ol");
    list.className = "verdicts";
    list.id = "mistakes";
    for (const item of missed) list.append(line(item, dots));
    const title = document.createElement("h3");
    title.textContent = "Moves that gave something away";
    parts.push(title, list);
  }
  const every = document.createElement("details");
  every.className = "every";
  const caption = document.createElement("summary");
  caption.textContent = "Every move";
  const all = document.createElement("ol");
  all.className = "verdicts";
  all.id = "verdicts";
  for (const item of items) all.append(line(item, dots));
  every.append(caption, all);
  parts.push(every);
  container.replaceChildren(...parts);
}

/** The review's items from a finished game's verdicts as the server sends
 * them (`{ move, seat, kept, cost, before, best }`, the values those of the
 * probe); `who(seat)` names seat 0 or 1, `coord(move)` a move. */
export function itemsOfVerdicts(verdicts, { who, coord }) {
  return verdicts.map((v, i) => {
    const seat = v.seat === "first" ? 0 : 1;
    return {
      ply: i,
      seat,
      who: who(seat),
      coord: coord(v.move),
      kept: v.kept,
      cost: v.cost,
      before: v.before,
      best: v.kept === false && v.best ? { coord: coord(v.best.move), text: describe(v.best).text } : null,
    };
  });
}

/** The value range of an answer: `{lower, upper}` (bounds, or a value
 * twice), or null. */
function rangeOf(answer) {
  if (!answer) return null;
  if (answer.ok) return { lower: answer.json, upper: answer.json };
  return answer.bounds ? { lower: answer.bounds.lower, upper: answer.bounds.upper } : null;
}

/** A move's verdict (`kept`, `cost`, `costMost`, `before`, `best`) from
 * what is proved: the value of the position it was played in (`at`), the
 * move's own value or range there, or — for the line games — the value
 * proved of the position it led to (`next`), turned over. Kept when the
 * move's whole range keeps the result the position had; given away when
 * even its best end falls short of the worst the position held; else
 * unknown. What it gave away lies between `cost` (the worst the position
 * held less the move's best end) and `costMost` (the best it held less
 * the move's worst end): equal where both are exact. `dots`: whether
 * values are box margins; `coord` names a move. */
export function judge(at, next, mv, { dots, coord }) {
  const before = rangeOf(at);
  let move = null;
  if (at && at.ok) {
    const m = at.json.moves.find((o) => o.move === mv);
    if (m) move = { lower: m, upper: m };
  } else if (at && at.bounds) {
    const m = at.bounds.moves.find((o) => o.move === mv);
    if (m) move = { lower: m.lower, upper: m.upper };
  }
  const after = rangeOf(next);
  if (!dots && after && levelClass(after.lower) === levelClass(after.upper)) {
    // The position it led to is proved won, drawn or lost.
    const turned = turnOver(after.lower);
    if (!move || levelClass(move.lower) !== levelClass(move.upper)) move = { lower: turned, upper: turned };
  }
  if (!before || !move) return {};
  const held = levelClass(before.lower);
  const exactBefore = held === levelClass(before.upper);
  const best = at && at.ok ? at.json.moves[0] : null;
  const value = exactBefore ? (at.ok ? at.json : before.lower) : null;
  if (exactBefore && levelClass(move.lower) === held && levelClass(move.upper) === held) {
    return { kept: true, cost: 0, before: typeof value === "number" ? { value } : value };
  }
  if (levelClass(move.upper) < held) {
    const given = {
      kept: false,
      cost: held - levelClass(move.upper),
      costMost: levelClass(before.upper) - levelClass(move.lower),
      before: exactBefore ? (typeof value === "number" ? { value } : value) : null,
    };
    if (best) given.best = { coord: coord(best.move), text: describe(best).text };
    return given;
  }
  return {};
}

/** The result class of a value or bound: 2 win, 1 draw, 0 loss; a
 * margin's number for dots. */
function levelClass(v) {
  if (typeof v === "number") return v;
  if (v.result === undefined) return v.value;
  return { loss: 0, draw: 1, win: 2 }[v.result];
}

/** A line game's value for the player who moved into a position, from
 * the value there for the player to move. */
function turnOver(v) {
  const result = { win: "loss", loss: "win", draw: "draw" }[v.result];
  return { result, plies: v.plies + 1, ...(v.plies_bound ? { plies_bound: v.plies_bound } : {}) };
}

/** What a finished game's state says of its record: recorded, and ranked
 * or why not (the ranking rules are on the leaderboard page); "" while it
 * is not written yet. Starts with a space, to follow a sentence. */
export function recordedText(json) {
  if (!json.recorded) return "";
  if (!json.unranked) return " Recorded in the leaderboard.";
  return ` Recorded, not ranked: ${json.unranked.explained}.`;
}
