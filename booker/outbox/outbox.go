// Package outbox relays the outbox_event rows that every booking and
// cancellation writes in its own transaction to the JetStream stream EVENTS,
// so that consumers such as the notifier hear of a change only after it was
// committed, and never of one that was rolled back (seed, section 6.3).
package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// The stream and subjects of the domain events. An event's subject is its type.
const (
	StreamName       = "EVENTS"
	SubjectBooked    = "appointment.booked"
	SubjectCancelled = "appointment.cancelled"
	// SubjectRescheduled is an appointment moved to another slot.
	SubjectRescheduled = "appointment.rescheduled"
	// SubjectConfirmed is a hold turned into a booking: the confirmation.
	SubjectConfirmed = "appointment.confirmed"
	// SubjectExpired is a hold whose time ran out: its place is free again.
	SubjectExpired = "appointment.expired"
)

// Event is the envelope of one outbox row on the stream. ID is the row's id and
// the message's Nats-Msg-Id; consumers use it to recognise a redelivery.
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// Decode reads the events of one EVENTS message: an object is one event, an
// array is the booked events of one relay round (see Relay). Consumers read
// both: a stream may hold messages of either kind.
func Decode(data []byte) ([]Event, error) {
	if Several(data) {
		var evs []Event
		if err := json.Unmarshal(data, &evs); err != nil {
			return nil, err
		}
		return evs, nil
	}
	var e Event
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return []Event{e}, nil
}

// Several is true for a message of several events (an array), false for a
// message of one.
func Several(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '['
}

// Appointment is the Data of the appointment events, as booker/postgres
// writes it: the appointment and the slot it holds or held. A reschedule's
// event holds the new slot, and the old one in the From fields.
type Appointment struct {
	AppointmentID int64     `json:"appointmentId"`
	SlotID        int64     `json:"slotId"`
	PatientID     int64     `json:"patientId"`
	DoctorID      int64     `json:"doctorId"`
	StartAt       time.Time `json:"startAt"`
	EndAt         time.Time `json:"endAt"`
	// ExpiresAt is a held place's end: a waitlist offer's confirmation deadline.
	ExpiresAt    *time.Time `json:"expiresAt,omitempty"`
	CreatedAt    *time.Time `json:"createdAt,omitempty"`
	CancelledAt  *time.Time `json:"cancelledAt,omitempty"`
	ExpiredAt    *time.Time `json:"expiredAt,omitempty"`
	FromSlotID   int64      `json:"fromSlotId,omitempty"`
	FromDoctorID int64      `json:"fromDoctorId,omitempty"`
	FromStartAt  *time.Time `json:"fromStartAt,omitempty"`
	FromEndAt    *time.Time `json:"fromEndAt,omitempty"`
}

// Setup creates or updates the EVENTS stream. It is idempotent, so every booker
// runs it at start. The choices:
//   - Limits retention, 7 days: other consumers may come later and read back.
//   - MaxBytes 1 GiB with DiscardNew: a full stream refuses the relay's publish,
//     so the rows stay in the outbox (visible as outbox_pending) instead of
//     events being dropped.
//   - Duplicates 10 min: a row published again after a relay died between the
//     PubAck and marking it is dropped by the stream; later repeats are caught
//     by the consumers' own records.
//
// ns sets the stream and its subjects apart on a shared NATS server.
func Setup(ctx context.Context, js jetstream.JetStream, ns shared.Namespace, replicas int) (jetstream.Stream, error) {
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        ns.Name(StreamName),
		Description: "Committed appointment events, relayed from outbox_event.",
		Subjects:    []string{ns.Subject("appointment.>")},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
		MaxAge:      7 * 24 * time.Hour,
		MaxBytes:    1 << 30,
		Discard:     jetstream.DiscardNew,
		Duplicates:  10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: events stream: %w", err)
	}
	return s, nil
}
