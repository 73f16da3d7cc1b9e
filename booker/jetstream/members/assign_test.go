package members_test

import (
	"fmt"
	"testing"

	"termin/booker/jetstream/members"
)

// TestAssignSharesEvenlyAndAlike: every booker that hears the same members
// assigns alike, and shares differ by one at most.
func TestAssignSharesEvenlyAndAlike(t *testing.T) {
	for _, tt := range []struct{ members, partitions int }{{1, 4}, {2, 4}, {3, 4}, {4, 4}, {3, 16}, {5, 4}} {
		t.Run(fmt.Sprintf("%d bookers, %d partitions", tt.members, tt.partitions), func(t *testing.T) {
			ids := make([]string, tt.members)
			for i := range ids {
				ids[i] = fmt.Sprintf("booker-%d", i)
			}
			got := members.Assign(ids, tt.partitions)
			if again := members.Assign(ids, tt.partitions); fmt.Sprint(again) != fmt.Sprint(got) {
				t.Fatalf("assigned %v, then %v", got, again)
			}
			held := map[string]int{}
			for _, m := range got {
				held[m]++
			}
			lo, hi := tt.partitions/tt.members, (tt.partitions+tt.members-1)/tt.members
			for _, id := range ids {
				if held[id] < lo || held[id] > hi {
					t.Errorf("%s holds %d partitions, want %d to %d: %v", id, held[id], lo, hi, got)
				}
			}
		})
	}
}
