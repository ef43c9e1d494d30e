// How the page words a value: shared by the explorer, rooms and the
// leaderboard, so a value reads the same everywhere.

/** Text, short tag and colour class of a value JSON (`result`/`plies` or `value`). */
export function describe(v) {
  if (v.result !== undefined) {
    const text = v.plies === 0 ? v.result : `${v.result} in ${v.plies}`;
    return { text, short: v.result[0].toUpperCase() + v.plies, cls: `v-${v.result}` };
  }
  const n = v.value;
  const sign = n > 0 ? "+" : n < 0 ? "−" : "±";
  const boxes = Math.abs(n) === 1 ? "box" : "boxes";
  return {
    text: `${sign}${Math.abs(n)} ${boxes}`,
    short: `${sign}${Math.abs(n)}`,
    cls: n > 0 ? "v-win" : n < 0 ? "v-loss" : "v-draw",
  };
}

/** The theme saved or preferred, applied to the page and its picker. */
export function initTheme(picker) {
  const apply = (theme) => {
    document.documentElement.dataset.theme = theme;
    picker.value = theme;
  };
  let theme = localStorage.getItem("solvedb-theme");
  if (!theme) {
    if (matchMedia("(prefers-contrast: more)").matches) theme = "contrast";
    else theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  apply(theme);
  picker.addEventListener("change", (e) => {
    localStorage.setItem("solvedb-theme", e.target.value);
    apply(e.target.value);
  });
}
