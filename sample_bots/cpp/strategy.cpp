// strategy.cpp: how the starter bot plays Gin Rummy. This is the file to change.
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
#include "strategy.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>

namespace starter {
namespace {

const std::string kRanks = "A23456789TJQK";

// 0 for an ace ... 12 for a king. Aces are low: A-2-3 is a run, Q-K-A is not.
int RankOf(const std::string& card) { return static_cast<int>(kRanks.find(card[0])); }

char SuitOf(const std::string& card) { return card[1]; }

using Meld = std::vector<int>;  // indexes into the hand

// Every meld that can be made from `cards`: sets (3 or 4 of a rank; for four also
// each group of three) and runs (3 or more consecutive cards of one suit).
std::vector<Meld> PossibleMelds(const std::vector<std::string>& cards) {
  std::vector<Meld> melds;
  std::map<int, Meld> by_rank;
  std::map<char, Meld> by_suit;
  for (int i = 0; i < static_cast<int>(cards.size()); ++i) {
    by_rank[RankOf(cards[i])].push_back(i);
    by_suit[SuitOf(cards[i])].push_back(i);
  }
  for (const auto& [rank, group] : by_rank) {
    if (group.size() >= 3) melds.emplace_back(group.begin(), group.begin() + std::min<size_t>(group.size(), 4));
    if (group.size() == 4) {
      for (size_t skip = 0; skip < 4; ++skip) {
        Meld three;
        for (size_t k = 0; k < 4; ++k)
          if (k != skip) three.push_back(group[k]);
        melds.push_back(three);
      }
    }
  }
  for (auto& [suit, group] : by_suit) {
    std::sort(group.begin(), group.end(),
              [&](int a, int b) { return RankOf(cards[a]) < RankOf(cards[b]); });
    for (size_t start = 0; start < group.size(); ++start) {
      // Grow the run card by card while the ranks stay consecutive.
      for (size_t end = start + 1; end < group.size(); ++end) {
        if (RankOf(cards[group[end]]) != RankOf(cards[group[end - 1]]) + 1) break;
        if (end - start + 1 >= 3) melds.emplace_back(group.begin() + start, group.begin() + end + 1);
      }
    }
  }
  return melds;
}

// `cards` without one copy of `card`.
std::vector<std::string> Without(std::vector<std::string> cards, const std::string& card) {
  auto found = std::find(cards.begin(), cards.end(), card);
  if (found != cards.end()) cards.erase(found);
  return cards;
}

// The least deadwood after throwing one card of `cards` other than `forbidden`.
int BestDeadwoodAfterDiscard(const std::vector<std::string>& cards, const std::string& forbidden) {
  int best = INT_MAX;
  for (const auto& card : cards)
    if (card != forbidden) best = std::min(best, Deadwood(Without(cards, card)));
  return best;
}

// Index of the first legal action that `test` accepts, or -1.
int FindAction(const google::protobuf::RepeatedPtrField<pb::Action>& legal,
               const std::function<bool(const pb::Action&)>& test) {
  for (int i = 0; i < legal.size(); ++i)
    if (test(legal[i])) return i;
  return -1;
}

std::function<bool(const pb::Action&)> IsDraw(pb::Draw::Source source) {
  return [source](const pb::Action& a) { return a.has_draw() && a.draw().source() == source; };
}

bool IsPass(const pb::Action& a) { return a.has_pass(); }

std::string TopOf(const pb::Observation& obs) {
  const auto& pile = obs.discard_pile();
  return pile.empty() ? "" : pile[pile.size() - 1];
}

std::vector<std::string> HandOf(const pb::Observation& obs) {
  return {obs.hand().begin(), obs.hand().end()};
}

// ------------------------------------------------------------------ decisions --

// Draw phases: take the top discard (or the first upcard) only if it helps.
Choice ChooseDraw(const pb::Observation& obs, const google::protobuf::RepeatedPtrField<pb::Action>& legal) {
  int take = FindAction(legal, IsDraw(pb::Draw::SOURCE_DISCARD));
  int other = FindAction(legal, IsDraw(pb::Draw::SOURCE_STOCK));
  if (other < 0) other = FindAction(legal, IsPass);  // the first upcard
  std::string top = TopOf(obs);
  if (take >= 0 && !top.empty()) {
    auto hand = HandOf(obs);
    int now = Deadwood(hand);
    hand.push_back(top);
    // After taking it we must discard another card: the taken one is forbidden.
    int after = BestDeadwoodAfterDiscard(hand, top);
    if (after < now || other < 0)
      return {take, std::nullopt, "take " + top + ": deadwood " + std::to_string(now) + " -> " + std::to_string(after)};
  }
  return {std::max(other, 0), std::nullopt, ""};
}

// Discard phase: knock if the referee lists a knock, else throw the worst card.
Choice ChooseDiscard(const pb::Observation& obs, const google::protobuf::RepeatedPtrField<pb::Action>& legal) {
  auto hand = HandOf(obs);
  // A listed Knock already carries the referee's best melds for that knock card.
  int best_knock = -1, best_knock_deadwood = INT_MAX;
  for (int i = 0; i < legal.size(); ++i) {
    if (!legal[i].has_knock()) continue;
    const auto& knock = legal[i].knock();
    auto left = Without(hand, knock.card());
    for (const auto& meld : knock.melds())
      for (const auto& card : meld.cards()) left = Without(left, card);
    int points = 0;
    for (const auto& card : left) points += ValueOf(card);
    if (points < best_knock_deadwood) best_knock = i, best_knock_deadwood = points;
  }
  if (best_knock >= 0)
    return {best_knock, std::nullopt, best_knock_deadwood == 0 ? "gin" : "knock with " + std::to_string(best_knock_deadwood)};

  // Otherwise the discard that leaves the least deadwood; on a tie the higher card.
  int best = -1, best_points = INT_MAX, best_value = -1;
  for (int i = 0; i < legal.size(); ++i) {
    if (!legal[i].has_discard()) continue;
    const std::string& card = legal[i].discard().card();
    int points = Deadwood(Without(hand, card));
    if (points < best_points || (points == best_points && ValueOf(card) > best_value))
      best = i, best_points = points, best_value = ValueOf(card);
  }
  if (best >= 0)
    return {best, std::nullopt, "discard " + legal[best].discard().card() + ": deadwood " + std::to_string(best_points)};
  return {};
}

// Last-discard variant: take the last discard only if it lets us knock.
Choice ChooseLastDiscard(const pb::Observation& obs, const google::protobuf::RepeatedPtrField<pb::Action>& legal) {
  int take = FindAction(legal, IsDraw(pb::Draw::SOURCE_DISCARD));
  int pass = FindAction(legal, IsPass);
  int limit = obs.has_gin() ? static_cast<int>(obs.gin().knock_limit()) : 10;
  std::string top = TopOf(obs);
  if (take >= 0 && !top.empty()) {
    auto hand = HandOf(obs);
    hand.push_back(top);
    if (BestDeadwoodAfterDiscard(hand, top) <= limit || pass < 0)
      return {take, std::nullopt, "take " + top + " to knock"};
  }
  return {std::max(pass, 0), std::nullopt, ""};
}

}  // namespace

int ValueOf(const std::string& card) { return std::min(RankOf(card) + 1, 10); }

// An exhaustive search; instant for the 10 or 11 cards of a Gin hand.
Arrangement BestArrangement(const std::vector<std::string>& cards) {
  const auto melds = PossibleMelds(cards);
  const int n = static_cast<int>(cards.size());
  std::vector<bool> used(n, false);
  std::vector<const Meld*> chosen, best;
  int best_deadwood = INT_MAX;

  // Decide the cards in order: the first undecided card is either deadwood or part
  // of a meld made of undecided cards.
  std::function<void(int, int)> search = [&](int i, int deadwood) {
    if (deadwood >= best_deadwood) return;  // cannot beat what we have
    while (i < n && used[i]) ++i;
    if (i == n) {
      best_deadwood = deadwood, best = chosen;
      return;
    }
    for (const auto& meld : melds) {
      if (std::find(meld.begin(), meld.end(), i) == meld.end()) continue;
      if (std::any_of(meld.begin(), meld.end(), [&](int k) { return used[k]; })) continue;
      for (int k : meld) used[k] = true;
      chosen.push_back(&meld);
      search(i + 1, deadwood);
      chosen.pop_back();
      for (int k : meld) used[k] = false;
    }
    used[i] = true;
    search(i + 1, deadwood + ValueOf(cards[i]));
    used[i] = false;
  };
  search(0, 0);

  Arrangement result;
  result.deadwood = best_deadwood;
  std::vector<bool> in_meld(n, false);
  for (const Meld* meld : best) {
    std::vector<std::string> named;
    for (int k : *meld) named.push_back(cards[k]), in_meld[k] = true;
    result.melds.push_back(named);
  }
  for (int k = 0; k < n; ++k)
    if (!in_meld[k]) result.unmatched.push_back(cards[k]);
  return result;
}

int Deadwood(const std::vector<std::string>& cards) { return BestArrangement(cards).deadwood; }

Choice Decide(const pb::DecisionRequest& request) {
  const auto& obs = request.observation();
  const auto& legal = request.legal_actions();
  switch (obs.phase()) {
    case pb::PHASE_FIRST_UPCARD:
    case pb::PHASE_DRAW:
      return ChooseDraw(obs, legal);
    case pb::PHASE_DISCARD:
      return ChooseDiscard(obs, legal);
    case pb::PHASE_LAST_DISCARD:
      return ChooseLastDiscard(obs, legal);
    case pb::PHASE_DEFEND:  // the listed defences come best first
      return {0, std::nullopt, "the best listed defence"};
    default:  // nothing else is asked in Gin Rummy
      return {};
  }
}

}  // namespace starter
