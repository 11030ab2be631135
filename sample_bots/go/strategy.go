// strategy.go: how the starter bot plays Gin Rummy. This is the file to change.
//
// It knows nothing about gRPC: main.go hands Decide one DecisionRequest (the
// generated Go type for the message in bot.proto) and sends back what it returns.
//
// The plan is simple and greedy:
//
//	draw     take the discard (or the first upcard) only if it lowers our deadwood,
//	         otherwise draw from the stock (or pass the upcard);
//	discard  knock as soon as the referee lists a legal Knock (the one leaving the
//	         least deadwood); otherwise throw the card that leaves the least
//	         deadwood, the highest such card on a tie;
//	defend   the first listed defence: the referee lists the best one first;
//	last discard (a Gin variant)  take it only if we can knock with it.
//
// Cards are strings: rank "A23456789TJQK" then suit "CDHS" ("TH", "7S").
package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	pb "rummyarena/botpb"
)

const ranks = "A23456789TJQK"

// rankOf is 0 for an ace ... 12 for a king. Aces are low: A-2-3 is a run, Q-K-A is not.
func rankOf(card string) int { return strings.IndexByte(ranks, card[0]) }

func suitOf(card string) byte { return card[1] }

// valueOf is the deadwood points of a card: ace 1, 2-9 face value, ten and pictures 10.
func valueOf(card string) int {
	if v := rankOf(card) + 1; v < 10 {
		return v
	}
	return 10
}

// possibleMelds lists every meld that can be made from cards, as indexes into
// cards: sets (3 or 4 cards of one rank; for four cards also each group of three)
// and runs (3 or more consecutive cards of one suit, ace low).
func possibleMelds(cards []string) [][]int {
	var melds [][]int
	byRank := map[int][]int{}
	bySuit := map[byte][]int{}
	for i, card := range cards {
		byRank[rankOf(card)] = append(byRank[rankOf(card)], i)
		bySuit[suitOf(card)] = append(bySuit[suitOf(card)], i)
	}
	for _, group := range byRank {
		if len(group) >= 3 {
			melds = append(melds, group[:min(len(group), 4)])
		}
		if len(group) == 4 {
			for skip := range group {
				var three []int
				for k, i := range group {
					if k != skip {
						three = append(three, i)
					}
				}
				melds = append(melds, three)
			}
		}
	}
	for _, group := range bySuit {
		sort.Slice(group, func(a, b int) bool { return rankOf(cards[group[a]]) < rankOf(cards[group[b]]) })
		for start := range group {
			// Grow the run card by card while the ranks stay consecutive.
			for end := start + 1; end < len(group); end++ {
				if rankOf(cards[group[end]]) != rankOf(cards[group[end-1]])+1 {
					break
				}
				if end-start+1 >= 3 {
					melds = append(melds, append([]int(nil), group[start:end+1]...))
				}
			}
		}
	}
	return melds
}

// Arrangement is the best way to meld a hand.
type Arrangement struct {
	Deadwood  int        // the least possible total value of the cards left over
	Melds     [][]string // the melds that achieve it
	Unmatched []string   // the cards left over
}

// BestArrangement searches every way to meld cards; instant for the 10 or 11
// cards of a Gin hand.
func BestArrangement(cards []string) Arrangement {
	melds := possibleMelds(cards)
	used := make([]bool, len(cards))
	bestDeadwood := math.MaxInt
	var best, chosen [][]int

	// Decide the cards in order: the first undecided card is either deadwood or
	// part of a meld made of undecided cards.
	var search func(i, deadwood int)
	search = func(i, deadwood int) {
		if deadwood >= bestDeadwood {
			return // cannot beat what we have
		}
		for i < len(cards) && used[i] {
			i++
		}
		if i == len(cards) {
			bestDeadwood, best = deadwood, append([][]int(nil), chosen...)
			return
		}
		for _, meld := range melds {
			if !contains(meld, i) || !allFree(meld, used) {
				continue
			}
			setUsed(meld, used, true)
			chosen = append(chosen, meld)
			search(i+1, deadwood)
			chosen = chosen[:len(chosen)-1]
			setUsed(meld, used, false)
		}
		used[i] = true
		search(i+1, deadwood+valueOf(cards[i]))
		used[i] = false
	}
	search(0, 0)

	result := Arrangement{Deadwood: bestDeadwood}
	inMeld := make([]bool, len(cards))
	for _, meld := range best {
		var named []string
		for _, k := range meld {
			named = append(named, cards[k])
			inMeld[k] = true
		}
		result.Melds = append(result.Melds, named)
	}
	for k, card := range cards {
		if !inMeld[k] {
			result.Unmatched = append(result.Unmatched, card)
		}
	}
	return result
}

func contains(meld []int, i int) bool {
	for _, k := range meld {
		if k == i {
			return true
		}
	}
	return false
}

func allFree(meld []int, used []bool) bool {
	for _, k := range meld {
		if used[k] {
			return false
		}
	}
	return true
}

func setUsed(meld []int, used []bool, value bool) {
	for _, k := range meld {
		used[k] = value
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Deadwood is the least deadwood of a hand.
func Deadwood(cards []string) int { return BestArrangement(cards).Deadwood }

// without returns cards without one copy of card.
func without(cards []string, card string) []string {
	out := make([]string, 0, len(cards))
	removed := false
	for _, c := range cards {
		if c == card && !removed {
			removed = true
			continue
		}
		out = append(out, c)
	}
	return out
}

// bestDeadwoodAfterDiscard is the least deadwood after throwing one card of cards
// other than forbidden.
func bestDeadwoodAfterDiscard(cards []string, forbidden string) int {
	best := math.MaxInt
	for _, card := range cards {
		if card != forbidden {
			best = min(best, Deadwood(without(cards, card)))
		}
	}
	return best
}

// findAction is the index of the first legal action that test accepts, or -1.
func findAction(legal []*pb.Action, test func(*pb.Action) bool) int {
	for i, action := range legal {
		if test(action) {
			return i
		}
	}
	return -1
}

func isDraw(source pb.Draw_Source) func(*pb.Action) bool {
	return func(a *pb.Action) bool { return a.GetDraw() != nil && a.GetDraw().Source == source }
}

func isPass(a *pb.Action) bool { return a.GetPass() != nil }

func topOf(pile []string) string {
	if len(pile) == 0 {
		return ""
	}
	return pile[len(pile)-1]
}

// Choice is what the bot plays: Index into the legal actions, or, when Action is
// set, that action instead (a knock or a defence with melds of your own choosing).
// Comment is kept in the replay.
type Choice struct {
	Index   int
	Action  *pb.Action
	Comment string
}

// -------------------------------------------------------------------- decisions --

// chooseDraw takes the top discard (or the first upcard) only if it helps.
func chooseDraw(obs *pb.Observation, legal []*pb.Action) Choice {
	take := findAction(legal, isDraw(pb.Draw_SOURCE_DISCARD))
	other := findAction(legal, isDraw(pb.Draw_SOURCE_STOCK))
	if other < 0 {
		other = findAction(legal, isPass) // the first upcard
	}
	if top := topOf(obs.DiscardPile); take >= 0 && top != "" {
		now := Deadwood(obs.Hand)
		// After taking it we must discard another card: the taken one is forbidden.
		after := bestDeadwoodAfterDiscard(append(append([]string(nil), obs.Hand...), top), top)
		if after < now || other < 0 {
			return Choice{Index: take, Comment: fmt.Sprintf("take %s: deadwood %d -> %d", top, now, after)}
		}
	}
	return Choice{Index: max0(other)}
}

// chooseDiscard knocks if the referee lists a knock, else throws the worst card.
func chooseDiscard(obs *pb.Observation, legal []*pb.Action) Choice {
	// A listed Knock already carries the referee's best melds for that knock card.
	bestKnock, bestKnockDeadwood := -1, math.MaxInt
	for i, action := range legal {
		knock := action.GetKnock()
		if knock == nil {
			continue
		}
		left := without(obs.Hand, knock.Card)
		for _, meld := range knock.Melds {
			for _, card := range meld.Cards {
				left = without(left, card)
			}
		}
		points := 0
		for _, card := range left {
			points += valueOf(card)
		}
		if points < bestKnockDeadwood {
			bestKnock, bestKnockDeadwood = i, points
		}
	}
	if bestKnock >= 0 {
		what := fmt.Sprintf("knock with %d", bestKnockDeadwood)
		if bestKnockDeadwood == 0 {
			what = "gin"
		}
		return Choice{Index: bestKnock, Comment: what}
	}

	// Otherwise the discard that leaves the least deadwood; on a tie the higher card.
	best, bestPoints, bestValue := -1, math.MaxInt, -1
	for i, action := range legal {
		discard := action.GetDiscard()
		if discard == nil {
			continue
		}
		points := Deadwood(without(obs.Hand, discard.Card))
		if points < bestPoints || (points == bestPoints && valueOf(discard.Card) > bestValue) {
			best, bestPoints, bestValue = i, points, valueOf(discard.Card)
		}
	}
	if best >= 0 {
		return Choice{Index: best, Comment: fmt.Sprintf("discard %s: deadwood %d", legal[best].GetDiscard().Card, bestPoints)}
	}
	return Choice{}
}

// chooseLastDiscard (a Gin variant) takes the last discard only if it lets us knock.
func chooseLastDiscard(obs *pb.Observation, legal []*pb.Action) Choice {
	take := findAction(legal, isDraw(pb.Draw_SOURCE_DISCARD))
	pass := findAction(legal, isPass)
	limit := 10
	if obs.Gin != nil {
		limit = int(obs.Gin.KnockLimit)
	}
	if top := topOf(obs.DiscardPile); take >= 0 && top != "" {
		after := bestDeadwoodAfterDiscard(append(append([]string(nil), obs.Hand...), top), top)
		if after <= limit || pass < 0 {
			return Choice{Index: take, Comment: "take " + top + " to knock"}
		}
	}
	return Choice{Index: max0(pass)}
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// Decide chooses an action for one DecisionRequest.
func Decide(request *pb.DecisionRequest) Choice {
	obs, legal := request.Observation, request.LegalActions
	switch obs.GetPhase() {
	case pb.Phase_PHASE_FIRST_UPCARD, pb.Phase_PHASE_DRAW:
		return chooseDraw(obs, legal)
	case pb.Phase_PHASE_DISCARD:
		return chooseDiscard(obs, legal)
	case pb.Phase_PHASE_LAST_DISCARD:
		return chooseLastDiscard(obs, legal)
	case pb.Phase_PHASE_DEFEND: // the listed defences come best first
		return Choice{Comment: "the best listed defence"}
	default: // nothing else is asked in Gin Rummy
		return Choice{}
	}
}
