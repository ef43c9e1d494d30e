// A finished game against perfect play, as the explorer and rooms show it:
// which move changed the result, what would have held, and every move.
import { costText, describe, plural } from "./values.js";

/** What one move did. `item`: { ply, seat, who, coord, kept, cost,
 * before, best } — `before` the value of the position it was played in and `best`
 * the best move there ({ coord, text }), where known. */
function verdictText(item, dots) {
  if (item.kept === null || item.kept === undefined) return "unknown within the search budget";
  if (item.kept) {
    if (!item.before) return "kept the value";
    if (dots) return `kept the value (${describe(item.before).text})`;
    return `kept the ${item.before.result} (${describe(item.before).text})`;
  }
  let text = costText(dots, item.cost, item.before);
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
