package jetstream

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/gateway"
)

// linesSubject carries each gateway's loads on its contended lines, so that
// the gateways split each slot's admissions and count each other's requests
// in the positions they give.
const linesSubject = "gateway.lines"

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

// ShareLines publishes the room's loads every interval and records the
// other gateways', until ctx ends. A gateway with nothing waiting still
// publishes (an empty message), so that the others drop its old loads.
func (q *Queue) ShareLines(ctx context.Context, room *gateway.Room, every time.Duration) error {
	sub, err := q.nc.Subscribe(q.cfg.Namespace.Subject(linesSubject), func(m *nats.Msg) {
		origin := m.Header.Get(originHeader)
		if origin == q.inbox || origin == "" || len(origin) > 128 {
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
	go q.publishLines(ctx, sub, room, every)
	return nil
}

func (q *Queue) publishLines(ctx context.Context, sub *nats.Subscription, room *gateway.Room, every time.Duration) {
	defer sub.Unsubscribe()
	t := time.NewTicker(every)
	defer t.Stop()
	var buf []gateway.LineLoad
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		full := tick%fullEvery == 0
		buf = room.Loads(buf[:0], full)
		for first := true; first || len(buf) > 0; first = false {
			n := min(len(buf), maxLinesPerMessage)
			msg := nats.NewMsg(q.cfg.Namespace.Subject(linesSubject))
			msg.Header.Set(originHeader, q.inbox)
			if full && first {
				msg.Header.Set(fullHeader, "1")
			}
			msg.Data = encodeLines(buf[:n])
			_ = q.nc.PublishMsg(msg)
			buf = buf[n:]
		}
	}
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
