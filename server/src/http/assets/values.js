// How the page words a value: shared by the explorer, rooms and the
// leaderboard, so a value reads the same everywhere. Every value shape of
// the API is read here and nowhere else (`describe`, `same`, `rank`).

/** "1 box", "2 boxes". */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${Math.abs(n) === 1 ? one : many}`;
}

/** Text, short tag and colour class of a value JSON (`result`/`plies` or `value`). */
export function describe(v) {
  if (v.result !== undefined) {
    // `plies_bound: "at_most"`: a strategy's upper bound (Qubic), not the
    // exact length of perfect play.
    const bound = v.plies_bound === "at_most" ? "≤" : "";
    const text = v.plies === 0 ? v.result : `${v.result} in ${bound}${v.plies}`;
    return { text, short: v.result[0].toUpperCase() + bound + v.plies, cls: `v-${v.result}` };
  }
  const n = v.value;
  const sign = n > 0 ? "+" : n < 0 ? "−" : "±";
  return {
    text: `${sign}${plural(Math.abs(n), "box", "boxes")}`,
    short: `${sign}${Math.abs(n)}`,
    cls: n > 0 ? "v-win" : n < 0 ? "v-loss" : "v-draw",
  };
}

/** A bound of the API's `bounds` (a margin's number, or an outcome's
 * `{result, plies}`) as the value JSON `describe` reads. */
function boundValue(b) {
  return typeof b === "number" ? { value: b } : b;
}

/** Text, short tag and colour classes (one or two, separated by a space:
 * add them with `classList.add(...cls.split(" "))`) of bounds a search proved
 * (`{lower, upper}` of an error's `bounds`): one value where they meet;
 * else both ends, coloured as a win (a loss) where even the low (high) end
 * is one, grey where they straddle. `exact` says whether they meet. */
export function describeBounds(b) {
  const lo = describe(boundValue(b.lower));
  const hi = describe(boundValue(b.upper));
  if (lo.text === hi.text) return { ...lo, exact: true };
  const margin = typeof b.lower === "number";
  const ends = `${lo.short}…${hi.short}`;
  const text = margin
    ? b.lower > 0
      ? `at least ${lo.text}`
      : b.upper < 0
        ? `at best ${hi.text}`
        : `between ${lo.text} and ${hi.text}`
    : `between ${lo.text} and ${hi.text}`;
  const cls = lo.cls === hi.cls ? `${lo.cls} v-bound` : "v-bound";
  return { text: `${text} (not settled)`, short: ends, cls, exact: false };
}

/** A value as a sentence for the player to move (`who`) against `other`:
 * what perfect play from both sides leads to. */
export function explain(v, who, other) {
  if (v.result !== undefined) {
    const plies = plural(v.plies, "more move");
    if (v.plies_bound === "at_most") {
      const side = v.result === "win" ? `${who} wins` : `${who} loses`;
      return `${side} within ${plies}, whatever ${v.result === "win" ? other : who} does (a bound: the fastest win may be shorter).`;
    }
    if (v.result === "win") return `${who} wins in ${plies} at most, whatever ${other} does.`;
    if (v.result === "loss") return `${who} loses, but can hold out for ${plies} if ${other} plays perfectly.`;
    return v.plies === 0 ? "The game is a draw." : `With perfect play the game ends in a draw, after ${plies}.`;
  }
  const n = v.value;
  if (n === 0) return `With perfect play the boxes still open split evenly between ${who} and ${other}.`;
  const [ahead, behind] = n > 0 ? [who, other] : [other, who];
  return `With perfect play ${ahead} gets ${Math.abs(n)} more of the boxes still open than ${behind}.`;
}

/** Where an answer came from, in words. */
export const SOURCES = {
  table: "From the table: solved in advance.",
  forced: "Worked out now without a search: each move finishes a line, lets the opponent finish one " +
    "at once, or leads to a position the tables answer.",
  search: "Worked out now by an exact search.",
};

/** Where the answer `json` came from, in words true of it: an answer of
 * the rules whose length is a bound came from a line of threats (or the
 * proved strategy), where the defender has choices, each losing no later;
 * that names the value's source only, as the server may have searched
 * moves the strategy leaves open. */
export function sourceText(json) {
  if (json.source === "forced" && json.plies_bound === "at_most") {
    return "The value was worked out now without a search: a line of threats, each to be blocked at once " +
      "(or the proved strategy), wins within that many moves; the defender may reply otherwise " +
      "but loses no later.";
  }
  return SOURCES[json.source] || json.source;
}

/** An order on values, larger is better for the player who moves:
 * wins first (the faster the better), then draws, then losses (the longer
 * the better); margins by size. */
export function rank(v) {
  if (v.result === undefined) return v.value;
  if (v.result === "win") return 1000 - v.plies;
  if (v.result === "loss") return -1000 + v.plies;
  return 0;
}

/** What a move with cost `cost` did, in words; `most`, where only a
 * range of the cost is proved (`cost` its least), the range's top, said
 * as a range, never as if exact. */
export function costText(dots, cost, before, most = cost) {
  if (most > cost) {
    if (dots) return `gave away between ${cost} and ${plural(most, "box", "boxes")}`;
    if (before && before.result === "win") return "turned a win into a draw or a loss";
    return "dropped at least one result (a draw to a loss), perhaps two (a win to a loss)";
  }
  if (dots) return `gave away ${plural(cost, "box", "boxes")}`;
  if (cost === 2) return "turned a win into a loss";
  if (before && before.result === "win") return "turned a win into a draw";
  if (before && before.result === "draw") return "turned a draw into a loss";
  return "dropped a result (a win to a draw, or a draw to a loss)";
}

/** How strongly to colour each move, 0.35 to 1 within its class: the
 * faster win, the longer defence (the weaker colour: the least bad loss),
 * the bigger margin, so the best of each kind stands out. And the moves as
 * good as the best one. */
export function shades(moves) {
  const out = new Map();
  const groups = new Map();
  for (const m of moves) {
    const cls = describe(m).cls;
    if (!groups.has(cls)) groups.set(cls, []);
    groups.get(cls).push(m);
  }
  for (const [cls, group] of groups) {
    const ranks = group.map(rank);
    const lo = Math.min(...ranks);
    const hi = Math.max(...ranks);
    for (const m of group) {
      let s = 0.6;
      if (hi > lo) {
        const t = (rank(m) - lo) / (hi - lo); // 1: the best of its class
        // Wins: the best is the strongest green; losses: the worst (the
        // quickest loss) the strongest red.
        s = cls === "v-loss" ? 1 - 0.65 * t : 0.35 + 0.65 * t;
      } else if (cls === "v-win") s = 1;
      else if (cls === "v-loss") s = 0.7;
      out.set(m.move, s);
    }
  }
  return out;
}

/** The least and the most `rank` a value may have: exact, one point; "in
 * at most N plies" (a strategy's or a proof's bound), a range — a win in N
 * plies or fewer (as fast as one), a loss in N plies or fewer (as short
 * as one). */
export function rankRange(v) {
  const r = rank(v);
  if (v.plies_bound !== "at_most" || v.result === undefined) return [r, r];
  if (v.result === "win") return [r, 999];
  if (v.result === "loss") return [-999, r];
  return [r, r];
}

/** Whether `m` is proved one of the best moves while some others are
 * proved worse: the moves the board marks with a star. With bounds, a
 * move is best only when the least its value may be is at least the most
 * every other move's may be; `ceiling`, where some moves are unknown, is
 * the most any of them may be (the rank of the position's best bound). */
export function best(m, moves, ceiling = null) {
  if (!moves.length) return false;
  const [low] = rankRange(m);
  if (ceiling !== null && ceiling > low) return false;
  let worse = false;
  for (const o of moves) {
    if (o === m) continue;
    const [, ohigh] = rankRange(o);
    if (ohigh > low) return false;
    if (ohigh < low) worse = true;
  }
  // Unknown moves below a ceiling the move reaches: it is proved best (a
  // win in one off the strategy) whatever they are.
  return worse || ceiling !== null;
}

/** Words for a move's place among its class: "the fastest win", "the
 * longest defence", "best" — or "" when it has no peers to beat or its
 * place is not proved (bounds that overlap). */
export function hint(m, moves, ceiling = null) {
  const peers = moves.filter((o) => describe(o).cls === describe(m).cls);
  const [low] = rankRange(m);
  const worse = peers.some((o) => rankRange(o)[1] < low);
  if (best(m, moves, ceiling)) {
    if (m.result === "win" && worse) return "the fastest win";
    if (m.result === "loss" && worse) return "the longest defence";
    return "best";
  }
  const above = peers.some((o) => o !== m && rankRange(o)[1] > low);
  if (m.result === "loss" && worse && !above) return "the longest defence";
  // Losses known only by bounds: the largest bound is the longest
  // resistance known (what the computer plays), not a proved best.
  const r = rank(m);
  if (m.result === "loss" && m.plies_bound === "at_most" && peers.some((o) => rank(o) < r)
      && r === Math.max(...peers.map(rank))) return "the longest resistance known";
  return "";
}

/** The legend for a kind of board: each tag's colour class, an example,
 * a few words and a sentence. */
export function legend(dots) {
  if (dots) {
    return [
      ["v-win", "+2", "2 boxes ahead", "after this move you end up 2 boxes ahead of the other player, of the boxes still open, if both play perfectly; the deeper the colour, the bigger the margin"],
      ["v-draw", "±0", "even", "the open boxes split evenly"],
      ["v-loss", "−1", "1 box behind", "you end up 1 box behind"],
      ["", "★", "best", "the best move"],
      ["v-bound", "−1…+3", "not settled", "where the exact search stopped before it settled a move: its value lies between the two numbers, as the search proved them; a single number is exact"],
    ];
  }
  return [
    ["v-win", "W5", "win in 5", "wins, at the latest 5 moves from now (counting both players' moves); the deeper the green, the faster"],
    ["v-draw", "D8", "draw", "a draw with perfect play, the game ending in 8 moves"],
    ["v-loss", "L6", "loss", "loses if the other side plays perfectly, 6 moves from now; the paler the red, the longer it holds out"],
    ["", "★", "best", "the best move: the fastest win, else the draw, else the longest defence"],
  ];
}

/** The theme saved or preferred, applied to the page and its picker. */
export function initTheme(picker, onChange = () => {}) {
  const apply = (theme) => {
    document.documentElement.dataset.theme = theme;
    picker.value = theme;
  };
  let theme = localStorage.getItem("solvedb-theme");
  if (!["light", "dark", "contrast"].includes(theme)) {
    if (matchMedia("(prefers-contrast: more)").matches) theme = "contrast";
    else theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  apply(theme);
  picker.addEventListener("change", (e) => {
    localStorage.setItem("solvedb-theme", e.target.value);
    apply(e.target.value);
    onChange(e.target.selectedOptions[0].textContent);
  });
}
