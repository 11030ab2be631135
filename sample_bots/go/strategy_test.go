// Tests for strategy.go: `make test` (go test). Deadwood values are worked out by
// hand beside each hand.
package main

import (
	"sort"
	"strings"
	"testing"

	pb "rummyarena/botpb"
)

func hand(text string) []string { return strings.Fields(text) }

func TestMeldsAndDeadwood(t *testing.T) {
	// AC-2C-3C, 4D-5D-6D, 7C-7H-7S; KH and QS left: 20.
	result := BestArrangement(hand("AC 2C 3C 4D 5D 6D 7S 7H 7C KH QS"))
	sort.Strings(result.Unmatched)
	if result.Deadwood != 20 || strings.Join(result.Unmatched, " ") != "KH QS" {
		t.Fatalf("got deadwood %d, unmatched %v; want 20, [KH QS]", result.Deadwood, result.Unmatched)
	}
	cases := map[string]int{
		"TH JH QH 7H 7S 7D 2C 3C 4C 9S":    9,  // TH-JH-QH, three 7s, 2C-3C-4C; 9S left
		"AC 2C 3C 4C 5D 5H 5S 9D 9H 9S KC": 10, // A-4 of clubs, three 5s, three 9s; KC left
		"QH KH AH":                         21, // aces are low: Q-K-A is no run
		"AH 2H 3H":                         0,
		"7C 7D 7H 7S 8S 9S":                0, // 7S goes to the run, not the set of four
		"2C 3D 4H":                         9, // a run needs one suit
	}
	for cards, want := range cases {
		if got := Deadwood(hand(cards)); got != want {
			t.Errorf("Deadwood(%s) = %d, want %d", cards, got, want)
		}
	}
}

func draw(source pb.Draw_Source) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Draw{Draw: &pb.Draw{Source: source}}}
}

func discard(card string) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Discard{Discard: &pb.Discard{Card: card}}}
}

func pass() *pb.Action { return &pb.Action{Kind: &pb.Action_Pass{Pass: &pb.Pass{}}} }

func request(phase pb.Phase, cards string, pile []string, legal []*pb.Action) *pb.DecisionRequest {
	return &pb.DecisionRequest{
		RequestId: 1,
		Observation: &pb.Observation{
			Phase: phase, Hand: hand(cards), DiscardPile: pile, Gin: &pb.GinView{KnockLimit: 10},
		},
		LegalActions: legal,
	}
}

func TestTakesTheDiscardOnlyWhenItLowersDeadwood(t *testing.T) {
	legal := []*pb.Action{draw(pb.Draw_SOURCE_STOCK), draw(pb.Draw_SOURCE_DISCARD)}
	cards := "AC 2C 4D 5D 7S 7H 9C JH QS KD"
	if got := Decide(request(pb.Phase_PHASE_DRAW, cards, []string{"3C"}, legal)).Index; got != 1 {
		t.Errorf("with 3C on the pile: chose %d, want 1 (take it)", got)
	}
	if got := Decide(request(pb.Phase_PHASE_DRAW, cards, []string{"KS"}, legal)).Index; got != 0 {
		t.Errorf("with KS on the pile: chose %d, want 0 (the stock)", got)
	}
	upcard := []*pb.Action{draw(pb.Draw_SOURCE_DISCARD), pass()}
	if got := Decide(request(pb.Phase_PHASE_FIRST_UPCARD, cards, []string{"KS"}, upcard)).Index; got != 1 {
		t.Errorf("first upcard KS: chose %d, want 1 (pass)", got)
	}
}

func TestKnocksWhenListedElseThrowsTheCardLeavingLeastDeadwood(t *testing.T) {
	cards := "AC 2C 3C 4D 5D 6D 7S 7H 7C 2H KH"
	var legal []*pb.Action
	for _, card := range hand(cards) {
		legal = append(legal, discard(card))
	}
	if got := Decide(request(pb.Phase_PHASE_DISCARD, cards, nil, legal)).Index; got != 10 {
		t.Errorf("no knock listed: chose %d, want 10 (KH)", got)
	}
	knock := &pb.Action{Kind: &pb.Action_Knock{Knock: &pb.Knock{Card: "KH", Melds: []*pb.Meld{
		{Cards: hand("AC 2C 3C")}, {Cards: hand("4D 5D 6D")}, {Cards: hand("7S 7H 7C")},
	}}}}
	choice := Decide(request(pb.Phase_PHASE_DISCARD, cards, nil, append(legal, knock)))
	if choice.Index != len(legal) || choice.Comment != "knock with 2" {
		t.Errorf("knock listed: chose %d (%q), want %d (knock with 2)", choice.Index, choice.Comment, len(legal))
	}
}

func TestNeverThrowsTheForbiddenCardWhenItIsNotListed(t *testing.T) {
	// 3C was just taken, so the referee does not list it; the choice is among the rest.
	cards := "AC 2C 3C 9D KS"
	legal := []*pb.Action{discard("AC"), discard("2C"), discard("9D"), discard("KS")}
	if got := Decide(request(pb.Phase_PHASE_DISCARD, cards, nil, legal)).Index; got != 3 {
		t.Errorf("chose %d, want 3 (KS)", got)
	}
}

func TestTakesTheLastDiscardOnlyToKnock(t *testing.T) {
	legal := []*pb.Action{draw(pb.Draw_SOURCE_DISCARD), pass()}
	// With 3C: AC-2C-3C, 4D-5D-6D, 7S-7H-7C, and 9C left after throwing KD: 9.
	cards := "AC 2C 4D 5D 6D 7S 7H 7C 9C KD"
	if got := Decide(request(pb.Phase_PHASE_LAST_DISCARD, cards, []string{"3C"}, legal)).Index; got != 0 {
		t.Errorf("3C: chose %d, want 0 (take it)", got)
	}
	if got := Decide(request(pb.Phase_PHASE_LAST_DISCARD, cards, []string{"QS"}, legal)).Index; got != 1 {
		t.Errorf("QS: chose %d, want 1 (pass)", got)
	}
}

func TestDefendsWithTheFirstListedDefence(t *testing.T) {
	defend := &pb.Action{Kind: &pb.Action_Defend{Defend: &pb.Defend{}}}
	if got := Decide(request(pb.Phase_PHASE_DEFEND, "AC", nil, []*pb.Action{defend, defend})).Index; got != 0 {
		t.Errorf("chose %d, want 0", got)
	}
}
