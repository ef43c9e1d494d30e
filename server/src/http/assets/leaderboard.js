// The leaderboard page: one page of /api/v1/leaderboard at a time (people
// ranked, then those without a rank yet), the computer's levels apart; the
// game and the page in the URL: `after=` the cursor the answer gave as
// `next` (any depth), or `page=` for the first pages. The cursors of the
// pages before are kept in the history entry, for "Previous".
import { initTheme, plural } from "./values.js";

const $ = (id) => document.getElementById(id);
const PER_PAGE = 20;
const GAMES = []; // the entries of /api/v1/games
// Where the page shown is: its game, its start ({ page } or { after }),
// the starts of the pages walked before it, and the next page's cursor.
let here = { game: "", start: { page: 1 }, trail: [], next: null, page: 1 };

function query() {
  const q = new URLSearchParams(location.search);
  const after = q.get("after");
  const page = Math.max(1, Number.parseInt(q.get("page") || "1", 10) || 1);
  return { game: q.get("game") || "", start: after ? { after } : { page } };
}

/** A table row for an entry: `first` is its first cell (rank or level). */
function row(e, first, shownTag) {
  const tr = document.createElement("tr");
  const cells = [
    first,
    null, // the name, below
    e.accuracy === null ? "—" : `${(100 * e.accuracy).toFixed(1)}%`,
    String(e.games),
    `${e.wins}–${e.draws}–${e.losses}`,
    String(e.moves),
  ];
  cells.forEach((text, k) => {
    const td = document.createElement(k === 1 ? "th" : "td");
    if (k === 1) {
      td.scope = "row";
      td.textContent = e.name;
      if (shownTag) {
        const tag = document.createElement("span");
        tag.className = "tag-id";
        tag.textContent = ` #${e.player}`;
        td.append(tag);
      }
    } else td.textContent = text;
    if (k === 5) td.className = "hide-narrow";
    tr.append(td);
  });
  tr.title = `${plural(e.games, "game")}: ${e.wins} won, ${e.draws} drawn, ${e.losses} lost; ${plural(e.moves, "move")} judged`;
  return tr;
}

async function show(game, start, trail, push) {
  document.body.dataset.state = "busy";
  const params = new URLSearchParams({ per_page: String(PER_PAGE) });
  if (start.after) params.set("after", start.after);
  else params.set("page", String(start.page));
  if (game) params.set("game", game);
  const response = await fetch(`/api/v1/leaderboard?${params}`);
  const json = await response.json();
  if (!response.ok) {
    $("status").textContent = `error: ${json.error}`;
    document.body.dataset.state = "idle";
    return;
  }
  const { page, pages } = json;
  here = { game, start, trail, next: json.next, page };
  const q = new URLSearchParams();
  if (game) q.set("game", game);
  if (start.after) q.set("after", start.after);
  else if (start.page > 1) q.set("page", String(start.page));
  if (push) history.pushState({ trail }, "", `?${q}`);
  else history.replaceState({ trail }, "", `?${q}`);
  $("game").value = game;
  $("min-games").textContent = String(json.min_games);
  $("min-games-rule").textContent = String(json.min_games);
  $("identities-per-hour").textContent = String(json.new_identities_per_hour);
  // A player's number shows where a name alone would not tell them apart.
  const count = new Map();
  for (const e of json.entries) count.set(e.name, (count.get(e.name) || 0) + 1);
  const body = $("entries");
  body.replaceChildren();
  let unrankedNoted = false;
  for (const e of json.entries) {
    if (e.rank === null && !unrankedNoted) {
      unrankedNoted = true;
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 6;
      td.className = "source";
      td.style.textAlign = "left";
      td.textContent = `Not ranked yet: fewer than ${plural(json.min_games, "game")}`;
      tr.append(td);
      body.append(tr);
    }
    const tr = row(e, e.rank === null ? "—" : String(e.rank), count.get(e.name) > 1 || e.name === "anonymous");
    if (e.rank === null) tr.classList.add("unranked");
    body.append(tr);
  }
  $("empty").hidden = json.entries.length > 0;
  const computer = $("computer");
  computer.replaceChildren();
  for (const e of json.computer) computer.append(row(e, e.name.replace(/^computer \((.*)\)$/, "$1"), false));
  $("computer-empty").hidden = json.computer.length > 0;
  $("page-of").textContent = `page ${page} of ${pages}`;
  $("prev").disabled = page <= 1;
  $("next").disabled = !json.next;
  $("status").textContent = `${game ? titleOf(game) : "All games"}, page ${page} of ${pages}`;
  document.body.dataset.state = "idle";
}

/** The name people read for a game, from `/api/v1/games`. */
function titleOf(game) {
  const entry = GAMES.find((g) => g.game === game);
  return entry ? entry.title : game;
}

async function main() {
  initTheme($("theme"));
  const listed = await (await fetch("/api/v1/games")).json();
  GAMES.push(...listed.games);
  for (const entry of listed.games) {
    const option = document.createElement("option");
    option.value = entry.game;
    option.textContent = entry.title;
    $("game").append(option);
  }
  $("game").addEventListener("change", (e) => show(e.target.value, { page: 1 }, [], true));
  // Previous: the page walked before this one; from a link to a deep page
  // (no walk behind it), the first page.
  $("prev").addEventListener("click", () => {
    const trail = here.trail.slice();
    const start = trail.pop() || { page: 1 };
    show(here.game, start, trail, true);
  });
  $("next").addEventListener("click", () => {
    if (here.next) show(here.game, { after: here.next }, [...here.trail, here.start], true);
  });
  addEventListener("popstate", (e) => {
    const { game, start } = query();
    show(game, start, (e.state && e.state.trail) || [], false);
  });
  const { game, start } = query();
  show(game, start, (history.state && history.state.trail) || [], false);
}

main();
