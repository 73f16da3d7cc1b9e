package checks

import (
	"fmt"
	"sort"
	"strings"
)

// filled: wherever more patients than places were decided on a slot, every
// place was taken. A patient told SLOT_FULL while a place stayed free is a
// lost place, as surely as an overbooking is a double one. A patient refused
// because they already have an appointment at that time is no demand for the
// slot: no free place could have been theirs.
func (c *checker) filled() Check {
	demand := map[int64]map[int64]bool{}
	for _, k := range c.run.Clicks {
		if !k.Final() || k.Code == "OVERLAPPING_APPOINTMENT" {
			continue
		}
		if demand[k.Slot] == nil {
			demand[k.Slot] = map[int64]bool{}
		}
		demand[k.Slot][k.Patient] = true
	}
	var bad []string
	over, places := 0, 0
	for slot, patients := range demand {
		f := c.slots[slot]
		if len(patients) < f.capacity {
			continue
		}
		over++
		places += f.capacity
		if f.rows < f.capacity {
			bad = append(bad, fmt.Sprintf("slot %d: %d patients for %d places, %d booked", slot, len(patients), f.capacity, f.rows))
		}
	}
	return Verdict("every place filled where demand exceeded supply", bad,
		fmt.Sprintf("%d slots over-demanded, all %d places filled", over, places))
}

// answered: every click got a final decision (201/200/409), or was refused
// by the rate limit (429, counted apart); none was left waiting or answered
// with anything else.
func (c *checker) answered() Check {
	by := map[string]int{}
	var bad []string
	for _, k := range c.run.Clicks {
		by[k.Outcome()]++
		if !k.Final() && k.Status != 429 {
			bad = append(bad, fmt.Sprintf("click %s of patient %d: %s after %d tries", k.Key, k.Patient, k.Outcome(), k.Tries))
		}
	}
	summary := outcomeSummary(by)
	if len(bad) > 0 {
		bad[0] = summary + "; " + bad[0]
	}
	return Verdict("every click answered with a final decision", bad, summary)
}

func outcomeSummary(by map[string]int) string {
	keys := make([]string, 0, len(by))
	total := 0
	for k, n := range by {
		keys = append(keys, k)
		total += n
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, by[k])
	}
	return fmt.Sprintf("%d clicks (%s)", total, strings.Join(parts, ", "))
}
