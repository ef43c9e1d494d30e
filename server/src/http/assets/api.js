// The explorer's requests to the server's JSON API: GET and POST, and the
// analysis streamed as server-sent events. Every failure comes back as an
// answer `{ ok: false, kind | status, error }`, never as a thrown error.
import { S } from "./state.js";

export async function api(path, params) {
  try {
    const response = await fetch(`/api/v1/${path}?${new URLSearchParams(params)}`);
    const json = await response.json();
    // The server's count of the live searches it has run (off the tables).
    const searches = response.headers.get("x-solvedb-searches");
    if (searches !== null) S.searches = Number(searches);
    return response.ok ? { ok: true, json } : { ok: false, status: response.status, ...json };
  } catch (e) {
    return { ok: false, kind: "io", error: `the server did not answer (${e.message})` };
  }
}

/** The analysis of `params.position` as it settles (server-sent events):
 * `onBounds` gets each step's bounds (or the table's answer while the
 * moves it leaves open are searched); resolves to the final answer, the
 * shape `api("probe")` gives. Where `onBounds` returns true for a table's
 * answer, that answer is the final one (marked `early`): the stream
 * closes and the server's search of the open moves stops. */
export function analysis(params, onBounds) {
  return new Promise((resolve) => {
    const source = new EventSource(`/api/v1/analysis?${new URLSearchParams(params)}`);
    let done = false;
    const end = (answer) => {
      if (done) return;
      done = true;
      source.close();
      resolve(answer);
    };
    source.addEventListener("bounds", (e) => {
      if (!done) onBounds({ ok: false, status: 503, streaming: true, ...JSON.parse(e.data) });
    });
    // A table's answer whose other moves the search is still settling.
    source.addEventListener("moves", (e) => {
      if (done) return;
      const json = JSON.parse(e.data);
      if (onBounds({ ok: true, streaming: true, json }) === true) end({ ok: true, early: true, json });
    });
    source.addEventListener("answer", (e) => {
      const d = JSON.parse(e.data);
      S.searches = d.searches;
      end(d.status === 200 ? { ok: true, json: d.body } : { ok: false, status: d.status, ...d.body });
    });
    source.addEventListener("error", () =>
      end({ ok: false, kind: "io", error: "the server's stream of the analysis ended early" }));
  });
}

export async function post(path, body) {
  try {
    const response = await fetch(`/api/v1/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    return response.ok ? { ok: true, json } : { ok: false, status: response.status, ...json };
  } catch (e) {
    return { ok: false, kind: "io", error: `the server did not answer (${e.message})` };
  }
}
