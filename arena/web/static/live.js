// The leaderboard, live: polls the run's progress and, when it changes, fetches the
// page again and swaps in its #board (rendered by the server, so the page and its
// updates come from one template).
"use strict";
(function () {
  const board = document.getElementById("board");
  if (!board || !board.dataset.poll) return;
  const url = board.dataset.poll;
  let last = null;

  function refresh() {
    return fetch(window.location.href, { headers: { Accept: "text/html" } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("board");
        if (fresh) board.replaceChildren(...Array.from(fresh.childNodes).map((n) => document.importNode(n, true)));
      });
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.text() : null))
      .then((text) => {
        if (text === null) return null;
        const progress = JSON.parse(text);
        const key = [progress.finished, progress.running, progress.scheduled, progress.cancelled].join("/");
        const changed = last !== null && key !== last;
        last = key;
        board.dataset.finished = String(progress.finished);
        return changed ? refresh() : null;
      })
      .catch(() => null)
      .finally(() => window.setTimeout(poll, 2000));
  }

  poll();
})();
