package jetstream

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/gateway"
	"termin/shared"
)

// linesSubject carries each gateway's loads on its contended lines, so that
// the gateways split each slot's admissions and count each other's requests
// in the positions they give.
const linesSubject = "gateway.lines"

// placesSubject carries each gateway's notes on patients' places in
// openings, so that a patient holds one place across the gateways.
const placesSubject = "gateway.places"

// maxNotesPerMessage keeps a JSON message of notes below 1 MiB.
const maxNotesPerMessage = 4_000

// fullHeader marks a message that carries all of a gateway's loads rather
// than its changes; the messages after it in the same tick add to it.
const fullHeader = "Termin-Lines-Full"

// fullEvery is how many ticks apart a gateway tells all its loads, so that
// a lost change is healed within seconds.
const fullEvery = 20

// lineBytes is one load on the wire: slot, demand, admitted.
const lineBytes = 16

// maxLinesPerMessage keeps a message far below NATS's 1 MiB payload limit.
const maxLinesPerMessage = 32_768

// ID names this gateway among its peers: its reply inbox, unique per
// connection.
func (q *Queue) ID() string { return q.inbox }

// Lines is the waiting room's side of the exchange between gateways (a
// gateway/room Exchange): the loads and place notes it tells, and those it
// hears from the others.
type Lines interface {
	Loads(buf []gateway.LineLoad, full bool) ([]gateway.LineLoad, bool)
	PeerLoads(name string, loads []gateway.LineLoad, full bool)
	Places(buf []gateway.PlaceNote) []gateway.PlaceNote
	PeerPlaces(origin string, notes []gateway.PlaceNote)
}

// ShareLines publishes the room's loads every interval and records the
// other gateways', until ctx ends. A gateway with nothing waiting still
// publishes (an empty message), so that the others drop its old loads.
func (q *Queue) ShareLines(ctx context.Context, room Lines, every time.Duration) error {
	sub, err := q.nc.Subscribe(q.cfg.Namespace.Subject(linesSubject), func(m *nats.Msg) {
		origin := peers{q}.peerOrigin(m)
		if origin == "" {
			return
		}
		loads, err := decodeLines(m.Data)
		if err != nil {
			q.log.Warn("undecodable line loads", "err", err)
			return
		}
		room.PeerLoads(origin, loads, m.Header.Get(fullHeader) != "")
	})
	if err != nil {
		return err
	}
	places, err := q.nc.Subscribe(q.cfg.Namespace.Subject(placesSubject), func(m *nats.Msg) {
		origin := peers{q}.peerOrigin(m)
		if origin == "" {
			return
		}
		var notes []gateway.PlaceNote
		if err := json.Unmarshal(m.Data, &notes); err != nil || len(notes) > maxNotesPerMessage {
			q.log.Warn("undecodable place notes", "err", err, "notes", len(notes))
			return
		}
		room.PeerPlaces(origin, validNotes(notes))
	})
	if err != nil {
		_ = sub.Unsubscribe()
		return err
	}
	go peers{q}.publishLines(ctx, sub, room, every)
	go peers{q}.publishPlaces(ctx, places, room, every)
	return nil
}

// noteCodes are the codes a place can end with.
var noteCodes = map[shared.Code]bool{"": true, gateway.CodeReleased: true, shared.Booked: true,
	shared.CodeSlotFull: true, shared.CodeSlotClosed: true, shared.CodeSlotNotFound: true, shared.CodeAlreadyBooked: true,
	shared.CodeTooManyAppointments: true, shared.CodeIdempotencyKeyReused: true}

// validNotes keeps the notes a gateway could have sent.
func validNotes(notes []gateway.PlaceNote) []gateway.PlaceNote {
	out := notes[:0]
	for _, n := range notes {
		if n.Patient > 0 && n.Doctor > 0 && shared.ValidKey(n.Key) {
			if !noteCodes[n.Code] {
				n.Code = gateway.CodeReleased // a refusal this build does not name: line up afresh
			}
			out = append(out, n)
		}
	}
	return out
}

// publishPlaces tells the places the room took or gave up since the last
// tick, in messages of at most maxNotesPerMessage notes.
func (q peers) publishPlaces(ctx context.Context, sub *nats.Subscription, room Lines, every time.Duration) {
	var buf []gateway.PlaceNote
	everyTick(ctx, sub, every, func(int) {
		buf = room.Places(buf[:0])
		for rest := buf; len(rest) > 0; {
			n := min(len(rest), maxNotesPerMessage)
			data, _ := json.Marshal(rest[:n])
			q.tell(placesSubject, data, false)
			rest = rest[n:]
		}
	})
}

// publishLines tells the room's loads every tick, all of them every
// fullEvery ticks; an empty message when there are none, so that the
// others know this gateway is there.
func (q peers) publishLines(ctx context.Context, sub *nats.Subscription, room Lines, every time.Duration) {
	var buf []gateway.LineLoad
	everyTick(ctx, sub, every, func(tick int) {
		var full bool
		buf, full = room.Loads(buf[:0], tick%fullEvery == 0)
		for first := true; first || len(buf) > 0; first = false {
			n := min(len(buf), maxLinesPerMessage)
			q.tell(linesSubject, encodeLines(buf[:n]), full && first)
			buf = buf[n:]
		}
	})
}

func encodeLines(loads []gateway.LineLoad) []byte {
	data := make([]byte, 0, lineBytes*len(loads))
	for _, l := range loads {
		data = binary.BigEndian.AppendUint64(data, uint64(l.SlotID))
		data = binary.BigEndian.AppendUint32(data, uint32(l.Demand))
		data = binary.BigEndian.AppendUint32(data, uint32(l.Inflight))
	}
	return data
}

func decodeLines(data []byte) ([]gateway.LineLoad, error) {
	if len(data)%lineBytes != 0 || len(data)/lineBytes > maxLinesPerMessage {
		return nil, fmt.Errorf("line loads message of %d bytes", len(data))
	}
	out := make([]gateway.LineLoad, 0, len(data)/lineBytes)
	for b := data; len(b) >= lineBytes; b = b[lineBytes:] {
		l := gateway.LineLoad{SlotID: int64(binary.BigEndian.Uint64(b)),
			Demand: int32(binary.BigEndian.Uint32(b[8:])), Inflight: int32(binary.BigEndian.Uint32(b[12:]))}
		if l.SlotID <= 0 || l.Demand < 0 || l.Inflight < 0 {
			return nil, fmt.Errorf("line load %+v out of range", l)
		}
		out = append(out, l)
	}
	return out, nil
}
