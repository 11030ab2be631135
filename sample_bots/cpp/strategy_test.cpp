// Tests for strategy.cpp: `make test`. Deadwood values are worked out by hand
// beside each hand. A failed check prints what it expected and exits 1.
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "strategy.h"

namespace {

namespace pb = ::rummy_arena::v1;
int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) std::cerr << "FAIL: " << what << std::endl, ++failures;
}

std::vector<std::string> Hand(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> cards;
  for (std::string card; in >> card;) cards.push_back(card);
  return cards;
}

pb::Action Draw(pb::Draw::Source source) {
  pb::Action action;
  action.mutable_draw()->set_source(source);
  return action;
}

pb::Action Discard(const std::string& card) {
  pb::Action action;
  action.mutable_discard()->set_card(card);
  return action;
}

pb::Action Pass() {
  pb::Action action;
  action.mutable_pass();
  return action;
}

pb::DecisionRequest Request(pb::Phase phase, const std::string& cards, const std::vector<std::string>& pile,
                            const std::vector<pb::Action>& legal) {
  pb::DecisionRequest request;
  request.set_request_id(1);
  auto* obs = request.mutable_observation();
  obs->set_phase(phase);
  for (const auto& card : Hand(cards)) obs->add_hand(card);
  for (const auto& card : pile) obs->add_discard_pile(card);
  obs->mutable_gin()->set_knock_limit(10);
  for (const auto& action : legal) *request.add_legal_actions() = action;
  return request;
}

void MeldsAndDeadwood() {
  auto result = starter::BestArrangement(Hand("AC 2C 3C 4D 5D 6D 7S 7H 7C KH QS"));
  Expect(result.deadwood == 20, "AC-2C-3C, 4D-5D-6D, three 7s; KH and QS left: 20");
  Expect(result.unmatched.size() == 2, "two cards unmatched");
  struct Case {
    const char* cards;
    int deadwood;
  };
  for (const Case& c : {Case{"TH JH QH 7H 7S 7D 2C 3C 4C 9S", 9}, Case{"AC 2C 3C 4C 5D 5H 5S 9D 9H 9S KC", 10},
                        Case{"QH KH AH", 21},  // aces are low: Q-K-A is no run
                        Case{"AH 2H 3H", 0}, Case{"7C 7D 7H 7S 8S 9S", 0},  // 7S to the run
                        Case{"2C 3D 4H", 9}}) {                            // a run needs one suit
    int got = starter::Deadwood(Hand(c.cards));
    Expect(got == c.deadwood, std::string("Deadwood(") + c.cards + ") = " + std::to_string(got) + ", want " +
                                  std::to_string(c.deadwood));
  }
}

void TakesTheDiscardOnlyWhenItLowersDeadwood() {
  std::vector<pb::Action> legal = {Draw(pb::Draw::SOURCE_STOCK), Draw(pb::Draw::SOURCE_DISCARD)};
  const std::string cards = "AC 2C 4D 5D 7S 7H 9C JH QS KD";
  Expect(starter::Decide(Request(pb::PHASE_DRAW, cards, {"3C"}, legal)).index == 1, "takes 3C");
  Expect(starter::Decide(Request(pb::PHASE_DRAW, cards, {"KS"}, legal)).index == 0, "draws from the stock under KS");
  std::vector<pb::Action> upcard = {Draw(pb::Draw::SOURCE_DISCARD), Pass()};
  Expect(starter::Decide(Request(pb::PHASE_FIRST_UPCARD, cards, {"KS"}, upcard)).index == 1, "passes the upcard KS");
}

void KnocksWhenListedElseThrowsTheCardLeavingLeastDeadwood() {
  const std::string cards = "AC 2C 3C 4D 5D 6D 7S 7H 7C 2H KH";
  std::vector<pb::Action> legal;
  for (const auto& card : Hand(cards)) legal.push_back(Discard(card));
  Expect(starter::Decide(Request(pb::PHASE_DISCARD, cards, {}, legal)).index == 10, "throws KH");
  pb::Action knock;
  knock.mutable_knock()->set_card("KH");
  for (const char* meld : {"AC 2C 3C", "4D 5D 6D", "7S 7H 7C"}) {
    auto* added = knock.mutable_knock()->add_melds();
    for (const auto& card : Hand(meld)) added->add_cards(card);
  }
  legal.push_back(knock);
  auto choice = starter::Decide(Request(pb::PHASE_DISCARD, cards, {}, legal));
  Expect(choice.index == 11 && choice.comment == "knock with 2", "knocks with 2: got " + choice.comment);
}

void TakesTheLastDiscardOnlyToKnock() {
  std::vector<pb::Action> legal = {Draw(pb::Draw::SOURCE_DISCARD), Pass()};
  // With 3C: AC-2C-3C, 4D-5D-6D, 7S-7H-7C, and 9C left after throwing KD: 9.
  const std::string cards = "AC 2C 4D 5D 6D 7S 7H 7C 9C KD";
  Expect(starter::Decide(Request(pb::PHASE_LAST_DISCARD, cards, {"3C"}, legal)).index == 0, "takes 3C to knock");
  Expect(starter::Decide(Request(pb::PHASE_LAST_DISCARD, cards, {"QS"}, legal)).index == 1, "passes QS");
}

}  // namespace

int main() {
  MeldsAndDeadwood();
  TakesTheDiscardOnlyWhenItLowersDeadwood();
  KnocksWhenListedElseThrowsTheCardLeavingLeastDeadwood();
  TakesTheLastDiscardOnlyToKnock();
  if (failures) return std::cerr << failures << " check(s) failed" << std::endl, 1;
  std::cout << "ok: every strategy check passed" << std::endl;
  return 0;
}
