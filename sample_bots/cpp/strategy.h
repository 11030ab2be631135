// strategy.h: how the starter bot plays Gin Rummy (strategy.cpp). No gRPC here:
// main.cpp hands Decide one DecisionRequest (the generated C++ class for the
// message in bot.proto) and sends back what it returns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arena/proto/bot.pb.h"

namespace starter {

namespace pb = ::rummy_arena::v1;

// The best way to meld a hand.
struct Arrangement {
  int deadwood = 0;                             // least total value of the cards left over
  std::vector<std::vector<std::string>> melds;  // the melds that achieve it
  std::vector<std::string> unmatched;           // the cards left over
};

// What the bot plays: `index` into the legal actions, or, when `action` is set,
// that action instead (a knock or a defence with melds of your own choosing).
// `comment` is kept in the replay.
struct Choice {
  int index = 0;
  std::optional<pb::Action> action;
  std::string comment;
};

int ValueOf(const std::string& card);  // ace 1, 2-9 face value, ten and pictures 10
Arrangement BestArrangement(const std::vector<std::string>& cards);
int Deadwood(const std::vector<std::string>& cards);
Choice Decide(const pb::DecisionRequest& request);

}  // namespace starter
