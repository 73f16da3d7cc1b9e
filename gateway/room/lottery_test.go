package room_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"testing"
	"time"

	wroom "termin/gateway/room"
)

// TestLotteryIsUniform: over 12,000 openings, the place a given patient
// draws among ten entrants is uniform (chi-squared, 9 degrees of freedom,
// below 27.88: p > 0.001), and so is the winner among them. The secrets are
// fixed, so the test is deterministic; a biased rank would fail it.
func TestLotteryIsUniform(t *testing.T) {
	const draws, entrants = 12_000, 10
	base := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	place, winner := make([]int, entrants), make([]int, entrants)
	for d := range draws {
		secret := wroom.OpeningSecret("common secret", int64(1+d%7), base.Add(time.Duration(d)*24*time.Hour))
		patients := []int64{101, 202, 303, 404, 505, 606, 707, 808, 909, 1010}
		slices.SortFunc(patients, func(a, b int64) int {
			ra, rb := wroom.LotteryRank(secret, a), wroom.LotteryRank(secret, b)
			switch {
			case ra < rb:
				return -1
			case ra > rb:
				return 1
			}
			return 0
		})
		place[slices.Index(patients, 505)]++
		winner[slices.Index([]int64{101, 202, 303, 404, 505, 606, 707, 808, 909, 1010}, patients[0])]++
	}
	for name, counts := range map[string][]int{"patient 505's place": place, "the winner": winner} {
		if chi := chiSquared(counts, float64(draws)/entrants); chi >= 27.88 {
			t.Errorf("%s is not uniform: chi-squared %.1f >= 27.88 over %v", name, chi, counts)
		}
	}
}

func chiSquared(counts []int, expected float64) float64 {
	chi := 0.0
	for _, c := range counts {
		chi += (float64(c) - expected) * (float64(c) - expected) / expected
	}
	return chi
}

// TestLotteryDependsOnTheOpeningAndPatientOnly: the same common secret gives
// the same opening secret and ranks (every gateway agrees); another doctor,
// instant or common secret gives another draw.
func TestLotteryDependsOnTheOpeningAndPatientOnly(t *testing.T) {
	at := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	s := wroom.OpeningSecret("k", 42, at)
	if !slices.Equal(s, wroom.OpeningSecret("k", 42, at.In(time.FixedZone("CET", 3600)))) {
		t.Error("the same opening in another zone has another secret")
	}
	for name, other := range map[string][]byte{
		"another doctor":        wroom.OpeningSecret("k", 43, at),
		"another instant":       wroom.OpeningSecret("k", 42, at.Add(time.Microsecond)),
		"another common secret": wroom.OpeningSecret("k2", 42, at),
	} {
		if slices.Equal(s, other) || wroom.LotteryRank(s, 7) == wroom.LotteryRank(other, 7) {
			t.Errorf("%s draws the same", name)
		}
	}
	if wroom.LotteryRank(s, 7) != binary.BigEndian.Uint64(rankBytes(s, 7)) {
		t.Error("rank is not the first 8 bytes of HMAC-SHA256(opening secret, patient)")
	}
}

// rankBytes is the documented audit recipe: HMAC-SHA256 keyed with the
// opening's published secret over the patient id in decimal.
func rankBytes(secret []byte, patient int64) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(patient, 10)))
	return m.Sum(nil)
}
