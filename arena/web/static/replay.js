// The replay viewer: steps through /api/.../matches/ID/replay (fetched once) with
// buttons and keys; draws every card with textContent only (names and comments are
// untrusted).  Served as a file, so the page's CSP needs no inline script.
"use strict";
(function () {
  const viewer = document.getElementById("viewer");
  if (!viewer) return;
  const SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  const $ = (id) => document.getElementById(id);
  let replay = null;
  let index = 0;
  let viewAs = -1; // -1: from above; else the seat whose view is shown
  // A decision's position file: the replay's route with /position in place of /replay.
  // A match in play has no replay to take positions from yet: no re-ask panel then.
  const source = viewer.dataset.replay || "";
  const positionRoute = source.replace(/\/replay$/, "/position");
  const matchId = (source.match(/\/matches\/(\d+)\/replay$/) || [])[1] || "match";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(text) {
    if (text === "??") return cardBack(); // a card a spectator may not see yet (live)
    const suit = SUITS[text.charAt(1)];
    if (text.length !== 2 || !suit) return el("span", "card joker", text);
    const rank = text.charAt(0) === "T" ? "10" : text.charAt(0);
    const node = el("span", "card " + suit[1], rank + suit[0]);
    node.dataset.card = text;
    return node;
  }

  function cardBack() {
    return el("span", "card back", "\u00a0");
  }

  function cards(list) {
    const span = el("span", "cards");
    for (const text of list) span.appendChild(card(text));
    return span;
  }

  function meld(m, names) {
    const span = el("span", "meld");
    span.dataset.meld = String(m.id);
    span.appendChild(el("span", "muted", "#" + m.id + " "));
    m.cards.forEach((text) => span.appendChild(card(text)));
    if (m.stands_for.length) span.appendChild(el("span", "wild", " (wild for " + m.stands_for.join(" ") + ")"));
    if (m.owner >= 0 && names[m.owner] !== undefined) span.appendChild(el("span", "muted", " " + names[m.owner]));
    return span;
  }

  function visible(seat) {
    return viewAs < 0 || viewAs === seat;
  }

  // Where a step is, as a person counts: games and hands from 1 (the JSON's are 0-based).
  function where(step) {
    if (step.game < 0) return "before the first game:";
    if (step.hand < 0) return "game " + (step.game + 1) + ":";
    return "game " + (step.game + 1) + ", hand " + (step.hand + 1) + ":";
  }

  function draw() {
    const step = replay.steps[index];
    const state = step.state;
    const names = replay.players.map((p) => p.name);
    $("position").textContent = "step " + (index + 1) + " / " + replay.steps.length;
    $("scrub").max = String(replay.steps.length - 1);
    $("scrub").value = String(index);
    $("step-where").textContent = where(step);
    $("step-text").textContent = step.text;
    $("step-private").textContent = step.private && visible(step.seat) ? "(drew " + step.private + ")" : "";
    $("step-comment").textContent = step.comment ? "# " + step.comment : "";
    drawReask(step);
    if (!state) return;
    $("stock").textContent = String(state.stock);
    const pile = $("discard");
    pile.replaceChildren(state.discard.length ? cards(state.discard) : el("span", "muted", "empty"));
    const melds = $("melds");
    melds.replaceChildren();
    state.table.forEach((m) => melds.appendChild(meld(m, names)));
    if (!state.table.length) melds.appendChild(el("span", "muted", "no melds"));
    const info = [];
    if (state.gin) {
      info.push("knock limit " + state.gin.knock_limit + (state.gin.doubled ? ", doubled" : ""));
      if (state.gin.knocker >= 0) info.push(names[state.gin.knocker] + " knocked");
    }
    if (state.rummy) info.push("reshuffles " + state.rummy.reshuffles + " / " + state.rummy.max_reshuffles);
    info.push("phase " + state.phase);
    $("game-info").textContent = info.join(" · ");
    document.querySelectorAll("#seats .seat-box").forEach((box) => {
      const seat = Number(box.dataset.seat);
      const marks = [];
      if (state.dealer === seat) marks.push("dealer");
      if (state.to_act === seat) marks.push("to act");
      if (state.eliminated[seat]) marks.push("out");
      box.querySelector(".marks").textContent = marks.join(", ");
      // At a hand's end, the totals after it; before, the totals the hand started with.
      const score = state.end ? state.end.scores[seat] : state.scores[seat];
      box.querySelector(".score").textContent = "score " + score;
      box.classList.toggle("acting", step.seat === seat);
      box.classList.toggle("viewer-seat", viewAs === seat);
      const hand = box.querySelector(".hand");
      hand.replaceChildren();
      const held = state.hands[seat];
      const known = state.known[seat];
      if (visible(seat)) {
        hand.appendChild(cards(held));
        hand.dataset.hidden = "false";
      } else {
        // Another seat's hand, as the viewing seat saw it: the cards it is known to
        // hold (taken from the discard pile), then backs for the rest.
        known.forEach((text) => hand.appendChild(card(text)));
        for (let i = known.length; i < state.sizes[seat]; i++) hand.appendChild(cardBack());
        hand.dataset.hidden = "true";
      }
      box.querySelector(".known").textContent = known.length ? "known: " + known.join(" ") : "";
    });
    const end = $("hand-end");
    end.replaceChildren();
    if (state.end) {
      const e = state.end;
      const winner = e.winner >= 0 ? names[e.winner] + " wins" : "no winner";
      end.appendChild(el("h3", "", "hand over: " + e.termination + ", " + winner + (e.knock_discard ? " (knock discard " + e.knock_discard + ")" : "")));
      const list = el("ul");
      e.seats.forEach((s, seat) => {
        const item = el("li");
        item.appendChild(el("strong", "", names[seat] + ": "));
        item.appendChild(document.createTextNode("melds "));
        s.melds.forEach((m) => item.appendChild(meld(m, [])));
        if (!s.melds.length) item.appendChild(document.createTextNode("– "));
        if (s.layoffs.length) item.appendChild(document.createTextNode(" layoffs " + s.layoffs.map((l) => l.card + ">" + l.meld + (l.stands_for ? "=" + l.stands_for : "")).join(" ")));
        item.appendChild(document.createTextNode(" · unmatched "));
        item.appendChild(cards(s.unmatched));
        item.appendChild(document.createTextNode(" (" + s.deadwood + ") · " + s.points + " points"));
        list.appendChild(item);
      });
      end.appendChild(list);
      end.appendChild(el("p", "", "totals: " + e.scores.join(" – ")));
    }
  }

  // A word as a POSIX shell reads it back: bare when safe, else in single quotes.
  function shellWord(word) {
    return /^[A-Za-z0-9._\/:@+-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'";
  }

  function commandLine(label, text) {
    const line = el("div", "reask-command");
    line.appendChild(el("span", "muted", label + " "));
    const code = el("code", "", text);
    line.appendChild(code);
    const copy = el("button", "copy", "copy");
    copy.type = "button";
    copy.addEventListener("click", () => {
      const done = () => { copy.textContent = "copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, () => selectText(code));
      } else {
        selectText(code);
      }
    });
    line.appendChild(copy);
    return line;
  }

  function selectText(node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // At a seat's decision: the position file to download, and the commands that ask a
  // bot that decision again (docs/REPLAY.md, "Asking a bot again").
  function drawReask(step) {
    const box = $("reask");
    box.replaceChildren();
    if (!source || step.kind !== "action" || !step.decision || step.seat < 0) return;
    const seat = step.seat;
    const file = "match" + matchId + "-seat" + seat + "-" + step.decision + ".json";
    const bot = shellWord(replay.players[seat] ? replay.players[seat].name : "BOT");
    const link = el("a", "", "position file");
    link.href = positionRoute + "?seat=" + seat + "&at=" + encodeURIComponent(step.decision);
    link.download = file;
    const head = el("div", "");
    head.appendChild(el("span", "muted", "ask this decision (seat " + seat + ", " + step.decision + ") again: "));
    head.appendChild(link);
    box.appendChild(head);
    box.appendChild(commandLine("with it:", "arena ask " + bot + " " + file));
    box.appendChild(commandLine("with the replay:", "arena replay REPLAY.jsonl --seat " + seat + " --at " + step.decision + " --ask " + bot));
  }

  function go(to) {
    index = Math.max(0, Math.min(replay.steps.length - 1, to));
    draw();
  }

  function handStarts() {
    const starts = [];
    replay.steps.forEach((step, i) => { if (step.kind === "deal") starts.push(i); });
    return starts;
  }

  function nextHand() {
    const later = handStarts().find((i) => i > index);
    go(later === undefined ? replay.steps.length - 1 : later);
  }

  function prevHand() {
    const earlier = handStarts().filter((i) => i < index);
    go(earlier.length ? earlier[earlier.length - 1] : 0);
  }

  function onKey(event) {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const keys = {
      ArrowRight: () => (event.shiftKey ? nextHand() : go(index + 1)),
      ArrowLeft: () => (event.shiftKey ? prevHand() : go(index - 1)),
      PageDown: nextHand,
      PageUp: prevHand,
      Home: () => go(0),
      End: () => go(replay.steps.length - 1),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  function start(data) {
    replay = data;
    const reask = el("div", "reask");
    reask.id = "reask";
    viewer.querySelector(".happened").after(reask);
    $("first-step").addEventListener("click", () => go(0));
    $("last-step").addEventListener("click", () => go(replay.steps.length - 1));
    $("prev").addEventListener("click", () => go(index - 1));
    $("next").addEventListener("click", () => go(index + 1));
    $("prev-hand").addEventListener("click", prevHand);
    $("next-hand").addEventListener("click", nextHand);
    $("scrub").addEventListener("input", (event) => go(Number(event.target.value)));
    $("view-as").addEventListener("change", (event) => { viewAs = Number(event.target.value); draw(); });
    document.addEventListener("keydown", onKey);
    viewer.classList.remove("hidden");
    viewer.dataset.ready = "true";
    const listing = document.getElementById("listing");
    if (listing) listing.classList.add("hidden");
    draw();
  }

  // A match in play: its steps arrive as Server-Sent Events (/api/.../matches/ID/events)
  // and the viewer follows the newest, unless the reader stepped back; when the match
  // ends, the page is loaded again to show the finished match.
  function follow(url) {
    const names = JSON.parse(viewer.dataset.players);
    const live = { players: names.map((name) => ({ name: name })), steps: [] };
    const status = $("live-status");
    const source = new EventSource(url);
    source.addEventListener("record", (event) => {
      const message = JSON.parse(event.data);
      if (!message.steps.length) return;
      const atEnd = replay === null || index === replay.steps.length - 1;
      live.steps.push(...message.steps);
      if (replay === null) start(live);
      if (atEnd) go(live.steps.length - 1);
      else $("position").textContent = "step " + (index + 1) + " / " + live.steps.length;
      viewer.dataset.steps = String(live.steps.length);
      if (status) status.textContent = "in play: " + live.steps.length + " steps so far";
    });
    source.addEventListener("end", (event) => {
      source.close();
      const how = JSON.parse(event.data).status;
      if (status) status.textContent = "the match is " + how + "; loading its page again";
      window.setTimeout(() => window.location.reload(), 1000);
    });
  }

  if (viewer.dataset.live) {
    follow(viewer.dataset.live);
    return;
  }

  fetch(viewer.dataset.replay, { headers: { Accept: "application/json" } })
    .then((response) => {
      if (!response.ok) throw new Error("the replay could not be loaded (" + response.status + ")");
      return response.json();
    })
    .then(start)
    .catch((error) => {
      viewer.classList.remove("hidden");
      viewer.replaceChildren(el("p", "problem", String(error.message)));
    });
})();
