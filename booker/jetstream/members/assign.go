package members

import (
	"hash/fnv"
	"slices"
	"strconv"
)

// Assign gives each of n partitions to one of members, alike in every
// booker that sees the same members. Each partition ranks the members by a
// hash of the pair (rendezvous hashing) and goes to the first of them that
// still has room; a member has room for n/len(members) partitions, and the
// first n%len(members) members to fill that up get one more. So shares
// differ by one at most, and a booker that comes or goes moves few
// partitions besides its own.
func Assign(members []string, n int) []string {
	out := make([]string, n)
	if len(members) == 0 {
		return out
	}
	base, extra := n/len(members), n%len(members)
	held := map[string]int{}
	for p := range out {
		for _, m := range ranked(members, p) {
			room := base
			if extra > 0 || held[m] > base {
				room = base + 1
			}
			if held[m] < room {
				if held[m] == base {
					extra--
				}
				held[m]++
				out[p] = m
				break
			}
		}
	}
	return out
}

// ranked is members by their hash with partition p, highest first.
func ranked(members []string, p int) []string {
	score := func(m string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(m))
		h.Write([]byte{'/'})
		h.Write([]byte(strconv.Itoa(p)))
		return h.Sum64()
	}
	out := slices.Clone(members)
	slices.SortFunc(out, func(a, b string) int {
		sa, sb := score(a), score(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return out
}
