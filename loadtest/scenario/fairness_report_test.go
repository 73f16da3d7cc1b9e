package scenario_test

import (
	"slices"
	"strings"
	"testing"

	"termin/loadtest/report"
	"termin/loadtest/scenario"
)

func TestPlacesLeftByTheDraw(t *testing.T) {
	slots := []int64{1, 2, 3}
	for _, c := range []struct {
		name     string
		accounts []scenario.FairAccount
		want     []int
	}{
		{"every slot picked before the opening", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Early: true, Bot: true, Slots: slots, Pick: 2}, {Early: true, Slots: slots, Pick: 3},
		}, []int{0}},
		{"a slot picked only after the opening is left", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Early: true, Bot: true, Slots: slots, Pick: 2}, {Slots: slots, Pick: 3},
		}, []int{1}},
		{"two picks of one slot leave the others", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 2}, {Early: true, Bot: true, Slots: slots, Pick: 2},
		}, []int{2}},
		{"openings counted apart", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Opening: 1, Early: true, Slots: []int64{4}, Pick: 4},
		}, []int{2, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scenario.PlacesLeft(c.accounts, len(c.want)); !slices.Equal(got, c.want) {
				t.Errorf("places left = %v, want %v", got, c.want)
			}
		})
	}
}

// TestReportCountsAfterTheDraw: only the accounts of openings that leave
// places count after the draw, each class apart.
func TestReportCountsAfterTheDraw(t *testing.T) {
	full, left := []int64{1, 2}, []int64{3, 4}
	accounts := []scenario.FairAccount{
		{Patient: 10, Early: true, Slots: full, Pick: 1}, {Patient: 11, Bot: true, Early: true, Slots: full, Pick: 2},
		{Patient: 12, Opening: 1, Early: true, Slots: left, Pick: 3}, {Patient: 13, Opening: 1, Bot: true, Slots: left, Pick: 4},
		{Patient: 14, Opening: 1, Bot: true, Early: true, Slots: left, Pick: 3},
	}
	rep := scenario.FairReport(accounts, 2, map[int64]int{10: 1, 11: 1, 12: 1, 13: 1}, 4)
	for _, c := range []struct {
		name              string
		got               report.Class
		accounts, winners int
	}{
		{"one-click patients", rep.Classes[0], 2, 2},
		{"bot accounts", rep.Classes[1], 3, 2},
		{"one-click after the draw", rep.AfterDraw[0], 1, 1},
		{"bots after the draw", rep.AfterDraw[1], 2, 1},
	} {
		if c.got.Accounts != c.accounts || c.got.Winners != c.winners {
			t.Errorf("%s: %d of %d won, want %d of %d", c.name, c.got.Winners, c.got.Accounts, c.winners, c.accounts)
		}
	}
	if rep.LeftOpenings != 1 || rep.LeftPlaces != 1 {
		t.Errorf("%d openings leave %d places, want 1 leaving 1", rep.LeftOpenings, rep.LeftPlaces)
	}
	var b strings.Builder
	rep.WriteText(&b)
	for _, want := range []string{"after the draw: 1 of 2 openings leave 1 places", "one-click / bot win rate: ", "  after the draw: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}
