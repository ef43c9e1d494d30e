// Rated games: the server keeps the game and makes the computer's moves;
// the page shows its state (values hidden until the end), sends the
// person's moves, resigns, and resumes a game the tab was playing before a
// reload.
import { $, S, announce, coord, levelOf, view } from "./state.js";
import { post } from "./api.js";
import { recordedText } from "./review.js";
import { identity, saveName } from "./identity.js";

/** Starts a rated game from the start: the server keeps it and makes the
 * computer's moves. */
export async function startRated() {
  const name = $("name").value.trim();
  if (!saveName(name)) {
    $("rated").checked = false;
    $("rated-note").textContent = `“${name}” is the computer's name: choose another.`;
    announce($("rated-note").textContent);
    return;
  }
  const levels = [levelOf(0), levelOf(1)].map((l) => (l === "human" ? "person" : l));
  if (S.rated && !S.rated.state.result) resignRated();
  S.rated = null;
  S.token++; // nothing running may move for the computer now
  S.busy = true;
  S.line = null;
  S.editing = false;
  view.render();
  const made = await post("sessions", {
    game: S.entry.game, first: levels[0], second: levels[1], player: identity(), name,
  });
  S.busy = false;
  if (!made.ok) {
    $("rated-note").textContent = `No rated game: ${made.error}`;
    announce($("rated-note").textContent);
    view.render();
    return;
  }
  $("rated-note").textContent = name ? `Playing as ${name}.` : "Playing as anonymous: give a name to be known on the leaderboard.";
  S.rated = { session: made.json.session, state: made.json };
  sessionStorage.setItem("solvedb-session", JSON.stringify({ session: made.json.session, game: S.entry.game }));
  const computer = made.json.history.map((mv) => coord(mv)).join(", ");
  S.pending = `Rated game started.${computer ? ` The computer played ${computer}.` : ""}`;
  adopt(made.json);
}

/** Shows the rated game's state from the server. */
export function adopt(state) {
  S.rated.state = state;
  S.start = state.start;
  S.moves = state.history.slice();
  S.at = S.moves.length;
  S.line = null;
  view.writeUrl(false);
  if (state.result) sessionStorage.removeItem("solvedb-session");
  view.refresh();
}

export async function ratedMove(mv) {
  const session = S.rated.session;
  const before = S.moves.length;
  S.busy = true;
  view.render();
  const answer = await post("sessions/move", { session, move: mv });
  S.busy = false;
  if (!S.rated || S.rated.session !== session) return;
  if (!answer.ok) {
    announce(`Refused: ${answer.error}`);
    if (answer.status === 400 && /no such game/.test(answer.error)) S.rated = null;
    view.render();
    return;
  }
  const played = answer.json.history.slice(before);
  const [mine, ...theirs] = played;
  let text = `You played ${coord(mine)}.`;
  if (theirs.length) text += ` The computer played ${theirs.map(coord).join(", ")}.`;
  if (answer.json.result) text += recordedText(answer.json);
  S.pending = text;
  adopt(answer.json);
}

export function resignRated() {
  const session = S.rated.session;
  sessionStorage.removeItem("solvedb-session");
  post("sessions/resign", { session }).then((answer) => {
    if (answer.ok) announce(`You resigned the rated game: it counts as lost.${recordedText(answer.json)}`);
  });
}

/** A rated game this tab was playing before a reload, if it is still on. */
export async function resume() {
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem("solvedb-session") || "null");
  } catch {
    saved = null;
  }
  if (!saved || !S.entry || saved.game !== S.entry.game) return;
  const state = await post("sessions/state", { session: saved.session });
  if (!state.ok || state.json.result) {
    sessionStorage.removeItem("solvedb-session");
    return;
  }
  $("first").value = state.json.levels.first === "person" ? "human" : state.json.levels.first;
  $("second").value = state.json.levels.second === "person" ? "human" : state.json.levels.second;
  S.rated = { session: saved.session, state: state.json };
  S.pending = "Back in your rated game.";
  adopt(state.json);
}
