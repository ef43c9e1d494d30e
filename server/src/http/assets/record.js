// Records a finished game against the computer's levels in the
// leaderboard: the server replays it by the rules and judges every move.

const sent = new Set();

/** The name people gave on the "play a friend" page, if any. */
export function savedName() {
  return (localStorage.getItem("solvedb-name") || "").trim();
}

/** Sends a finished game once, if one seat is a person and the other the computer. */
export async function recordFinished(game, start, moves, levels) {
  const people = levels.filter((l) => l === "human").length;
  if (people !== 1) return;
  const key = `${game}|${start}|${moves.join(" ")}`;
  if (sent.has(key)) return;
  sent.add(key);
  const name = (level) => (level === "human" ? savedName() || "anonymous" : `computer (${level})`);
  try {
    await fetch("/api/v1/games", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        game, position: start, moves, players: { first: name(levels[0]), second: name(levels[1]) },
      }),
    });
  } catch {
    sent.delete(key); // try again at the next chance
  }
}
