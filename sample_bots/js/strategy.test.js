// Tests for strategy.js, with Node's built-in runner: `npm test`.
// Deadwood values are worked out by hand beside each hand.

'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { bestArrangement, deadwood, decide } = require('./strategy');

const hand = (text) => text.split(' ');

test('melds and deadwood', () => {
  // AC-2C-3C, 4D-5D-6D, 7C-7H-7S; KH and QS left: 20.
  const result = bestArrangement(hand('AC 2C 3C 4D 5D 6D 7S 7H 7C KH QS'));
  assert.equal(result.deadwood, 20);
  assert.deepEqual(result.unmatched.sort(), ['KH', 'QS']);
  // TH-JH-QH, 7D-7H-7S, 2C-3C-4C; 9S left: 9.
  assert.equal(deadwood(hand('TH JH QH 7H 7S 7D 2C 3C 4C 9S')), 9);
  // A-2-3-4 of clubs, three 5s, three 9s; KC left: 10.
  assert.equal(deadwood(hand('AC 2C 3C 4C 5D 5H 5S 9D 9H 9S KC')), 10);
});

test('aces are low: Q-K-A is no run', () => {
  assert.equal(deadwood(hand('QH KH AH')), 21);
  assert.equal(deadwood(hand('AH 2H 3H')), 0);
});

test('a card shared by a set and a run is used where it helps most', () => {
  // 7C-7D-7H and 7S-8S-9S: gin; using all four sevens would strand 8S and 9S.
  assert.equal(deadwood(hand('7C 7D 7H 7S 8S 9S')), 0);
});

const draw = (source) => ({ kind: 'draw', draw: { source } });
const discard = (card) => ({ kind: 'discard', discard: { card } });

function request(phase, cards, pile, legal) {
  return {
    request_id: '1',
    observation: { phase, hand: hand(cards), discard_pile: pile, gin: { knock_limit: 10 } },
    legal_actions: legal,
  };
}

test('takes the discard only when it lowers deadwood', () => {
  const legal = [draw('SOURCE_STOCK'), draw('SOURCE_DISCARD')];
  const cards = 'AC 2C 4D 5D 7S 7H 9C JH QS KD';
  assert.equal(decide(request('PHASE_DRAW', cards, ['3C'], legal)).index, 1);
  assert.equal(decide(request('PHASE_DRAW', cards, ['KS'], legal)).index, 0);
});

test('knocks when a knock is listed, else throws the card leaving least deadwood', () => {
  const cards = 'AC 2C 3C 4D 5D 6D 7S 7H 7C 2H KH';
  const knock = {
    kind: 'knock',
    knock: { card: 'KH', melds: [{ cards: hand('AC 2C 3C') }, { cards: hand('4D 5D 6D') }, { cards: hand('7S 7H 7C') }] },
  };
  const discards = hand(cards).map(discard);
  assert.equal(decide(request('PHASE_DISCARD', cards, [], [...discards, knock])).index, discards.length);
  assert.equal(decide(request('PHASE_DISCARD', cards, [], discards)).index, 10); // KH
});

test('defends with the first listed defence', () => {
  assert.equal(decide(request('PHASE_DEFEND', 'AC', [], [{ kind: 'defend' }, { kind: 'defend' }])).index, 0);
});

test('takes the last discard only to knock', () => {
  const legal = [draw('SOURCE_DISCARD'), { kind: 'pass' }];
  // With 3C: AC-2C-3C, 4D-5D-6D, 7S-7H-7C, and 9C left after throwing KD: 9.
  const cards = 'AC 2C 4D 5D 6D 7S 7H 7C 9C KD';
  assert.equal(decide(request('PHASE_LAST_DISCARD', cards, ['3C'], legal)).index, 0);
  assert.equal(decide(request('PHASE_LAST_DISCARD', cards, ['QS'], legal)).index, 1);
});
