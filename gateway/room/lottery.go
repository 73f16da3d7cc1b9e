package room

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"slices"
	"strconv"
	"time"
)

// OpeningSecret is the secret of one opening's lottery (the slots of one
// doctor that open at one instant), derived from the gateways' common
// lottery secret: every gateway computes the same, nobody without the common
// secret can predict it, and publishing it after the opening, so that anyone
// can check the draw, reveals nothing about other openings.
func OpeningSecret(master string, doctorID int64, opensAt time.Time) []byte {
	m := hmac.New(sha256.New, []byte(master))
	m.Write([]byte("termin opening lottery|"))
	m.Write(strconv.AppendInt(nil, opensAt.UnixMicro(), 10))
	m.Write([]byte("|"))
	m.Write(strconv.AppendInt(nil, doctorID, 10))
	return m.Sum(nil)
}

// LotteryRank is the patient's draw in the opening whose secret is given:
// the pre-queue is admitted by ascending rank. It depends on nothing but the
// opening and the patient, so that every gateway puts a patient at the same
// place, and a patient's keys or connections do not change it.
func LotteryRank(openingSecret []byte, patientID int64) uint64 {
	m := hmac.New(sha256.New, openingSecret)
	m.Write(strconv.AppendInt(nil, patientID, 10))
	return binary.BigEndian.Uint64(m.Sum(nil))
}

// open runs the opening lottery: the pre-queue goes first, by each patient's
// rank in the opening, then everyone who came after the opening. The
// opening's secret is logged now, not before, so that the draw can be
// checked afterwards but not foreseen.
func (r *Room) open(ln *line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ln.draw(r.cfg.Secret, r.log)
	r.admitLocked(ln)
}

// draw puts the pre-queue, in its lottery order under the gateways' common
// secret, ahead of the line, and logs the opening's own secret. Called under
// the room's lock.
func (ln *line) draw(secret string, log *slog.Logger) {
	if len(ln.pre) > 0 {
		doctor := ln.pre[0].doctorID
		opening := OpeningSecret(secret, doctor, ln.opensAt)
		rank := make(map[*ticket]uint64, len(ln.pre))
		for _, t := range ln.pre {
			rank[t] = LotteryRank(opening, t.req.PatientID)
		}
		slices.SortFunc(ln.pre, func(a, b *ticket) int {
			return cmp.Or(cmp.Compare(rank[a], rank[b]), cmp.Compare(a.req.PatientID, b.req.PatientID))
		})
		log.Info("opening lottery", "slot", ln.slotID, "doctor", doctor, "opens_at", ln.opensAt,
			"opening_secret", hex.EncodeToString(opening), "entrants", len(ln.pre))
	}
	for _, t := range ln.pre {
		t.pre = false
	}
	ln.waiting = append(ln.pre, ln.waiting...)
	ln.pre = nil
	for i, t := range ln.waiting {
		t.seq = ln.admitted + i
	}
}
