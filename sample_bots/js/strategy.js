// strategy.js: how the starter bot plays Gin Rummy. This is the file to change.
//
// It knows nothing about gRPC: bot.js hands `decide` one DecisionRequest (a plain
// object, field names exactly as in bot.proto) and sends back what it returns.
//
// The plan is simple and greedy:
//   draw     take the discard (or the first upcard) only if it lowers our deadwood,
//            otherwise draw from the stock (or pass the upcard);
//   discard  knock as soon as the referee lists a legal Knock (the one leaving the
//            least deadwood); otherwise throw the card that leaves the least
//            deadwood, the highest such card on a tie;
//   defend   the first listed defence: the referee lists the best one first;
//   last discard (a Gin variant)  take it only if we can knock with it.
//
// Cards are strings: rank "A23456789TJQK" then suit "CDHS" ("TH", "7S").
// Enums arrive as their names ("PHASE_DRAW", "SOURCE_DISCARD") and each oneof
// says which member is set ("kind": "knock"), thanks to the loader options in bot.js.

'use strict';

const RANKS = 'A23456789TJQK';

/** 0 for an ace ... 12 for a king. Aces are low: A-2-3 is a run, Q-K-A is not. */
function rankOf(card) {
  return RANKS.indexOf(card[0]);
}

function suitOf(card) {
  return card[1];
}

/** Deadwood points of a card: ace 1, 2-9 face value, ten and pictures 10. */
function valueOf(card) {
  return Math.min(rankOf(card) + 1, 10);
}

/**
 * Every meld that can be made from `cards`, as lists of indexes into `cards`:
 * sets (3 or 4 cards of one rank; for four cards also each group of three) and
 * runs (3 or more consecutive cards of one suit, ace low).
 */
function possibleMelds(cards) {
  const melds = [];

  const byRank = new Map();
  cards.forEach((card, i) => {
    const rank = rankOf(card);
    if (!byRank.has(rank)) byRank.set(rank, []);
    byRank.get(rank).push(i);
  });
  for (const group of byRank.values()) {
    if (group.length >= 3) melds.push(group.slice(0, 4));
    if (group.length === 4) {
      for (let skip = 0; skip < 4; skip++) melds.push(group.filter((_, k) => k !== skip));
    }
  }

  const bySuit = new Map();
  cards.forEach((card, i) => {
    const suit = suitOf(card);
    if (!bySuit.has(suit)) bySuit.set(suit, []);
    bySuit.get(suit).push(i);
  });
  for (const group of bySuit.values()) {
    group.sort((a, b) => rankOf(cards[a]) - rankOf(cards[b]));
    for (let start = 0; start < group.length; start++) {
      // Grow the run card by card while the ranks stay consecutive.
      for (let end = start + 1; end < group.length; end++) {
        if (rankOf(cards[group[end]]) !== rankOf(cards[group[end - 1]]) + 1) break;
        if (end - start + 1 >= 3) melds.push(group.slice(start, end + 1));
      }
    }
  }
  return melds;
}

/**
 * The best way to meld `cards`: { deadwood, melds, unmatched }, where deadwood
 * is the least possible total value of the cards left outside the melds.
 * An exhaustive search; instant for the 10 or 11 cards of a Gin hand.
 */
function bestArrangement(cards) {
  const melds = possibleMelds(cards);
  const used = new Array(cards.length).fill(false);
  let best = { deadwood: Infinity, melds: [] };
  const chosen = [];

  // Decide the cards in order: the first undecided card is either deadwood or
  // part of a meld made of undecided cards.
  function search(i, deadwood) {
    if (deadwood >= best.deadwood) return; // cannot beat what we have
    while (i < cards.length && used[i]) i++;
    if (i === cards.length) {
      best = { deadwood, melds: chosen.slice() };
      return;
    }
    for (const meld of melds) {
      if (meld.includes(i) && meld.every((k) => !used[k])) {
        meld.forEach((k) => (used[k] = true));
        chosen.push(meld);
        search(i + 1, deadwood);
        chosen.pop();
        meld.forEach((k) => (used[k] = false));
      }
    }
    used[i] = true;
    search(i + 1, deadwood + valueOf(cards[i]));
    used[i] = false;
  }
  search(0, 0);

  const inMeld = new Set(best.melds.flat());
  return {
    deadwood: best.deadwood,
    melds: best.melds.map((meld) => meld.map((k) => cards[k])),
    unmatched: cards.filter((_, k) => !inMeld.has(k)),
  };
}

function deadwood(cards) {
  return bestArrangement(cards).deadwood;
}

/** `cards` without one copy of `card`. */
function without(cards, card) {
  const i = cards.indexOf(card);
  return i < 0 ? cards.slice() : cards.slice(0, i).concat(cards.slice(i + 1));
}

/** The least deadwood after throwing one card of `cards` other than `forbidden`. */
function bestDeadwoodAfterDiscard(cards, forbidden) {
  let best = Infinity;
  for (const card of new Set(cards)) {
    if (card !== forbidden) best = Math.min(best, deadwood(without(cards, card)));
  }
  return best;
}

/** Index of the first legal action that `test` accepts, or -1. */
function findAction(legal, test) {
  return legal.findIndex(test);
}

const isDraw = (source) => (action) => action.kind === 'draw' && action.draw.source === source;
const isPass = (action) => action.kind === 'pass';

// -------------------------------------------------------------------- decisions --

/** Draw phases: take the top discard (or the first upcard) only if it helps. */
function chooseDraw(observation, legal) {
  const takeIndex = findAction(legal, isDraw('SOURCE_DISCARD'));
  let otherIndex = findAction(legal, isDraw('SOURCE_STOCK'));
  if (otherIndex < 0) otherIndex = findAction(legal, isPass); // the first upcard
  const pile = observation.discard_pile;
  const top = pile[pile.length - 1];

  if (takeIndex >= 0 && top) {
    const now = deadwood(observation.hand);
    // After taking it we must discard another card: the taken one is forbidden.
    const after = bestDeadwoodAfterDiscard([...observation.hand, top], top);
    if (after < now || otherIndex < 0) {
      return { index: takeIndex, comment: `take ${top}: deadwood ${now} -> ${after}` };
    }
  }
  return { index: otherIndex >= 0 ? otherIndex : 0, comment: '' };
}

/** Discard phase: knock if the referee lists a knock, else throw the worst card. */
function chooseDiscard(observation, legal) {
  const hand = observation.hand;

  // A listed Knock already carries the referee's best melds for that knock card.
  let bestKnock = -1;
  let bestKnockDeadwood = Infinity;
  legal.forEach((action, index) => {
    if (action.kind !== 'knock') return;
    let left = without(hand, action.knock.card);
    for (const meld of action.knock.melds) {
      for (const card of meld.cards) left = without(left, card);
    }
    const points = left.reduce((sum, card) => sum + valueOf(card), 0);
    if (points < bestKnockDeadwood) {
      bestKnock = index;
      bestKnockDeadwood = points;
    }
  });
  if (bestKnock >= 0) {
    const what = bestKnockDeadwood === 0 ? 'gin' : `knock with ${bestKnockDeadwood}`;
    return { index: bestKnock, comment: what };
  }

  // Otherwise the discard that leaves the least deadwood; on a tie the higher card.
  let best = -1;
  let bestPoints = Infinity;
  let bestValue = -1;
  legal.forEach((action, index) => {
    if (action.kind !== 'discard') return;
    const card = action.discard.card;
    const points = deadwood(without(hand, card));
    if (points < bestPoints || (points === bestPoints && valueOf(card) > bestValue)) {
      best = index;
      bestPoints = points;
      bestValue = valueOf(card);
    }
  });
  if (best >= 0) {
    return { index: best, comment: `discard ${legal[best].discard.card}: deadwood ${bestPoints}` };
  }
  return { index: 0, comment: '' };
}

/** Last-discard variant: take the last discard only if it lets us knock. */
function chooseLastDiscard(observation, legal) {
  const takeIndex = findAction(legal, isDraw('SOURCE_DISCARD'));
  const passIndex = findAction(legal, isPass);
  const pile = observation.discard_pile;
  const top = pile[pile.length - 1];
  const limit = observation.gin ? observation.gin.knock_limit : 10;
  if (takeIndex >= 0 && top) {
    const after = bestDeadwoodAfterDiscard([...observation.hand, top], top);
    if (after <= limit || passIndex < 0) return { index: takeIndex, comment: `take ${top} to knock` };
  }
  return { index: passIndex >= 0 ? passIndex : 0, comment: '' };
}

/**
 * Choose an action for one DecisionRequest.
 * Returns { index, comment }: `index` into request.legal_actions, and an optional
 * comment the arena keeps in the replay (handy when you study your games).
 * Return { action, comment } instead to play an action that is not listed (a
 * knock or defence with other melds); see "Decisions" in docs/PROTOCOL.md.
 */
function decide(request) {
  const observation = request.observation;
  const legal = request.legal_actions;
  switch (observation.phase) {
    case 'PHASE_FIRST_UPCARD':
    case 'PHASE_DRAW':
      return chooseDraw(observation, legal);
    case 'PHASE_DISCARD':
      return chooseDiscard(observation, legal);
    case 'PHASE_LAST_DISCARD':
      return chooseLastDiscard(observation, legal);
    case 'PHASE_DEFEND': // the listed defences come best first
      return { index: 0, comment: 'the best listed defence' };
    default: // nothing else is asked in Gin Rummy
      return { index: 0, comment: '' };
  }
}

module.exports = { decide, bestArrangement, deadwood, valueOf, rankOf, possibleMelds };
