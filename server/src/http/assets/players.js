// The computer's weaker levels, run in the browser: "random" (a uniformly
// random legal move) and "classic" (a fixed shallow depth-limited
// alpha-beta with a heuristic, the kind of computer player that errs now
// and then). The "perfect" level asks the server's oracle.
//
// Why here and not on the server: these players are a part of the page's
// play, not of the tables' knowledge; in the browser they cost the server
// nothing, need no search slot, and cannot be used to load it. The
// heuristic for the tic-tac-toe family is the line count that `solvedb
// bench cube` measures as its baseline (+100 for an own line of n-1 stones
// with the last cell empty, +10 per own stone in a line the opponent has not
// touched, -500 for an opponent's line of n-1 with the last cell empty),
// generalised from 3 to n cells; for dots-and-boxes it is the boxes taken,
// minus a penalty for leaving a box with three edges to the opponent.

/** Search depth (plies) of the classic player, per board. */
export function classicDepth(rules) {
  // The cube: depth 4, as the bench's baseline; Qubic's 64 cells: depth 2,
  // which answers at once in the browser.
  if (rules.dims === 3) return rules.n >= 4 ? 2 : 4;
  if (rules.dims === 2) return rules.n >= 4 ? 3 : 2;
  return 3; // dots
}

export function randomMove(moves) {
  return moves[Math.floor(Math.random() * moves.length)];
}

/** The line heuristic, for the player `me`. */
function lineScore(rules, cells, me) {
  const them = me === "X" ? "O" : "X";
  const n = rules.n;
  let score = 0;
  for (const line of rules.lines) {
    let mine = 0;
    let theirs = 0;
    for (const i of line) {
      if (cells[i] === me) mine++;
      else if (cells[i] === them) theirs++;
    }
    if (theirs === 0 && mine === n - 1) score += 100;
    else if (theirs === 0) score += 10 * mine;
    if (mine === 0 && theirs === n - 1) score -= 500;
  }
  return score;
}

const WIN = 1e6;

function lineSearch(rules, cells, depth, alpha, beta) {
  const me = rules.toMove(cells);
  const won = rules.winLine(cells);
  if (won) return -WIN - depth; // the previous move won: sooner is worse for us
  const moves = rules.moves(cells);
  if (moves.length === 0) return 0;
  if (depth === 0) return lineScore(rules, cells, me);
  let best = -Infinity;
  for (const mv of moves) {
    const v = -lineSearch(rules, rules.play(cells, mv), depth - 1, -beta, -alpha);
    if (v > best) best = v;
    if (v > alpha) alpha = v;
    if (alpha >= beta) break;
  }
  return best;
}

/** Dots: `me` is the mover's score lead; a move that closes a box moves again. */
function dotsSearch(rules, edges, depth, alpha, beta) {
  const moves = rules.moves(edges);
  if (moves.length === 0) return 0;
  if (depth === 0) {
    // Boxes with three edges drawn are the opponent's for the taking.
    let threes = 0;
    for (let r = 0; r < rules.rows; r++)
      for (let c = 0; c < rules.cols; c++)
        if (rules.boxEdges(r, c).filter((e) => edges[e]).length === 3) threes++;
    return threes; // it is our turn: they are ours
  }
  let best = -Infinity;
  for (const mv of moves) {
    const taken = rules.closes(edges, rules.edgeOf(mv));
    const next = rules.play(edges, mv);
    const v = taken > 0
      ? taken + dotsSearch(rules, next, depth - 1, alpha - taken, beta - taken)
      : -dotsSearch(rules, next, depth - 1, -beta, -alpha);
    if (v > best) best = v;
    if (v > alpha) alpha = v;
    if (alpha >= beta) break;
  }
  return best;
}

/** The classic player's move: the best by the shallow search, ties broken at random. */
export function classicMove(rules, state) {
  const depth = classicDepth(rules);
  const moves = rules.moves(state);
  let best = -Infinity;
  let choices = [];
  for (const mv of moves) {
    let v;
    if (rules.lines) {
      v = -lineSearch(rules, rules.play(state, mv), depth - 1, -Infinity, Infinity);
    } else {
      const taken = rules.closes(state, rules.edgeOf(mv));
      const next = rules.play(state, mv);
      v = taken > 0
        ? taken + dotsSearch(rules, next, depth - 1, -Infinity, Infinity)
        : -dotsSearch(rules, next, depth - 1, -Infinity, Infinity);
    }
    if (v > best) {
      best = v;
      choices = [mv];
    } else if (v === best) choices.push(mv);
  }
  return randomMove(choices);
}
