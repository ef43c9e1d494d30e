// The leaderboard page: one page of /api/v1/leaderboard at a time (people
// ranked, then those without a rank yet), the computer's levels apart; the
// game and page in the URL.
import { initTheme, plural } from "./values.js";

const $ = (id) => document.getElementById(id);
const PER_PAGE = 20;
let pages = 1;
const GAMES = []; // the entries of /api/v1/games

function query() {
  const q = new URLSearchParams(location.search);
  const page = Math.max(1, Number.parseInt(q.get("page") || "1", 10) || 1);
  return { game: q.get("game") || "", page };
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

async function show(game, page, push) {
  document.body.dataset.state = "busy";
  const params = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
  if (game) params.set("game", game);
  const response = await fetch(`/api/v1/leaderboard?${params}`);
  const json = await response.json();
  if (!response.ok) {
    $("status").textContent = `error: ${json.error}`;
    document.body.dataset.state = "idle";
    return;
  }
  pages = json.pages;
  const q = new URLSearchParams();
  if (game) q.set("game", game);
  if (page > 1) q.set("page", String(page));
  if (push) history.pushState(null, "", `?${q}`);
  $("game").value = game;
  $("min-games").textContent = String(json.min_games);
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
  $("next").disabled = page >= pages;
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
  $("game").addEventListener("change", (e) => show(e.target.value, 1, true));
  $("prev").addEventListener("click", () => show(query().game, query().page - 1, true));
  $("next").addEventListener("click", () => show(query().game, query().page + 1, true));
  addEventListener("popstate", () => show(query().game, query().page, false));
  const { game, page } = query();
  show(game, page, false);
}

main();
