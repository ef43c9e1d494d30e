// Who plays in this browser: a per-browser identity (a random secret the
// leaderboard counts games for; no accounts: clearing the browser's
// storage starts a new player) and the name given, kept in storage.

const ID_KEY = "solvedb-player";
const NAME_KEY = "solvedb-name";

/** This browser's identity: 32 hex digits from its CSPRNG, made once. */
export function identity() {
  let id = localStorage.getItem(ID_KEY) || "";
  if (!/^[0-9a-f]{32}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(ID_KEY, id);
  }
  return id;
}

/** The name given, if any. */
export function savedName() {
  return (localStorage.getItem(NAME_KEY) || "").trim();
}

/** Keeps `name`; false (and nothing kept) if it is one of the computer's. */
export function saveName(name) {
  const trimmed = name.trim();
  if (reservedName(trimmed)) return false;
  localStorage.setItem(NAME_KEY, trimmed);
  return true;
}

/** Whether people may not take `name`: it reads as the computer's (the
 * server refuses the same names, `store::is_reserved_name`). */
export function reservedName(name) {
  const plain = name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
  return plain.startsWith("computer") || plain.startsWith("solvedb");
}
