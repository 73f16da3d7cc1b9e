package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/gateway"
	"termin/shared"
)

// PlacesBucket is the KV bucket of patients' places in openings, one key per
// (doctor, opening, patient), that the gateways create and share.
const PlacesBucket = "gateway-places"

// Places is the gateways' record of places over a KV bucket: a claim is a
// Create (the stream refuses a second one atomically), a replacement an
// Update at the revision read, a release a Delete at its revision. The
// bucket is kept in memory: a place lasts minutes, and a NATS restart that
// forgets them only lets a patient's keys take a place again.
type Places struct {
	kv jetstream.KeyValue
	// q reads the decisions of places' keys.
	q *Queue
}

var _ gateway.PlaceRecord = (*Places)(nil)

// Places binds the record of places, creating its bucket if no gateway has
// yet; ttl must outlast a place (its pre-queue window and its wait). Its
// replicas follow the decisions bucket's, which the booker sized for the
// cluster.
func (q *Queue) Places(ctx context.Context, ttl time.Duration) (*Places, error) {
	name := q.cfg.Namespace.Name(PlacesBucket)
	cfg := jetstream.KeyValueConfig{Bucket: name, Description: "patients' places in openings, one per gateway-wide claim",
		History: 1, TTL: ttl, Storage: jetstream.MemoryStorage, Replicas: q.replicas(ctx)}
	kv, err := q.js.CreateKeyValue(ctx, cfg)
	if err != nil {
		// Made by another gateway, perhaps with another window: use it.
		var bindErr error
		if kv, bindErr = q.js.KeyValue(ctx, name); bindErr != nil {
			return nil, fmt.Errorf("jetstream: places bucket: %w", err)
		}
	}
	return &Places{kv: kv, q: q}, nil
}

// replicas is the decisions bucket's replica count, 1 when unknown.
func (q *Queue) replicas(ctx context.Context) int {
	st, err := q.kv.Status(ctx)
	if err != nil {
		return 1
	}
	if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		return max(bs.StreamInfo().Config.Replicas, 1)
	}
	return 1
}

// claimAttempts bounds a claim that finds the place released between its
// Create and its read of the holder.
const claimAttempts = 3

// Claim implements gateway.PlaceRecord.
func (p *Places) Claim(ctx context.Context, want gateway.Place) (gateway.Place, error) {
	key, val := placeKey(want), placeValue(want)
	for range claimAttempts {
		rev, err := p.kv.Create(ctx, key, val)
		if err == nil {
			want.Rev = rev
			return want, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return gateway.Place{}, err
		}
		e, err := p.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			continue // released since: claim again
		case err != nil:
			return gateway.Place{}, err
		}
		return holder(want, e), nil
	}
	return gateway.Place{}, errors.New("places: the place changed hands three times during one claim")
}

// Replace implements gateway.PlaceRecord.
func (p *Places) Replace(ctx context.Context, want gateway.Place, rev uint64) (gateway.Place, error) {
	got, err := p.kv.Update(ctx, placeKey(want), placeValue(want), rev)
	var api *jetstream.APIError
	switch {
	case err == nil:
		want.Rev = got
		return want, nil
	case errors.As(err, &api):
		return p.Claim(ctx, want) // replaced or released by another first
	}
	return gateway.Place{}, err
}

// Release implements gateway.PlaceRecord; a place that changed hands since
// is left to its holder.
func (p *Places) Release(ctx context.Context, pl gateway.Place) error {
	err := p.kv.Delete(ctx, placeKey(pl), jetstream.LastRevision(pl.Rev))
	if api := (*jetstream.APIError)(nil); errors.As(err, &api) {
		return nil
	}
	return err
}

// Decided implements gateway.PlaceRecord: the key's decision is in the
// decisions bucket, or its plain booking's row (Queue.Recorded).
func (p *Places) Decided(ctx context.Context, pl gateway.Place) (bool, error) {
	_, decided, err := p.q.Recorded(ctx, pl.Patient, pl.Key)
	return decided, err
}

// placeKey is the place's key: doctor, opening and patient.
func placeKey(p gateway.Place) string {
	b := strconv.AppendInt(nil, p.Doctor, 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, p.OpensAt, 10)
	b = append(b, '.')
	return string(strconv.AppendInt(b, p.Patient, 10))
}

// placeHolder is a place's value: who holds it.
type placeHolder struct {
	Gateway string `json:"g"`
	Key     string `json:"k"`
}

func placeValue(p gateway.Place) []byte {
	data, _ := json.Marshal(placeHolder{Gateway: p.Gateway, Key: p.Key})
	return data
}

// holder reads the recorded place. A value no gateway could have written
// names nobody: the room finds such a place over (a gateway it never heard)
// and replaces it.
func holder(want gateway.Place, e jetstream.KeyValueEntry) gateway.Place {
	var h placeHolder
	if json.Unmarshal(e.Value(), &h) != nil || !shared.ValidKey(h.Key) || h.Gateway == "" || len(h.Gateway) > 128 {
		h = placeHolder{}
	}
	want.Gateway, want.Key, want.Rev = h.Gateway, h.Key, e.Revision()
	return want
}
