package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker/outbox"
)

// Contact is where and in which language a patient is written to.
type Contact struct {
	PatientID int64
	Name      string
	Email     string
	Phone     string
	// Language is one of shared.Languages.
	Language string
}

// channel is one way of reaching a patient.
type channel struct {
	name    string
	sender  Sender
	address func(Contact) string
}

func (n *Notifier) channels() []channel {
	return []channel{
		{ChannelEmail, n.Mail, func(c Contact) string { return c.Email }},
		{ChannelSMS, n.SMS, func(c Contact) string { return c.Phone }},
	}
}

// contactColumns read a contact with only the channels its patient consented
// to: an address without consent reads as none, so no message goes there.
// Consent is read when the message is sent, so a confirmation queued before
// a change goes to the details (and consent) valid at that moment.
const contactColumns = `patient_id, name, CASE WHEN email_consent THEN email END,
        CASE WHEN sms_consent THEN phone END, language`

// contactLookup finds a patient's contact data; ok is false when there is none.
type contactLookup func(ctx context.Context, patientID int64) (c Contact, ok bool, err error)

// preload reads the contacts of the batch's patients in one query. The lookup
// it returns answers from that read; should the read fail, it asks the
// database again per event, so that each event gets the error (and is
// delivered again later) or its contact.
func (n *Notifier) preload(ctx context.Context, batch []job) contactLookup {
	patients := make([]int64, 0, len(batch))
	for _, j := range batch {
		if j.err == nil {
			patients = append(patients, j.appt.PatientID)
		}
	}
	rows, err := n.DB.Query(ctx, `
        SELECT `+contactColumns+` FROM patient_contact WHERE patient_id = ANY($1)`, patients)
	if err != nil {
		return n.contact
	}
	found := make(map[int64]Contact)
	for rows.Next() {
		c, err := scanContact(rows)
		if err != nil {
			rows.Close()
			return n.contact
		}
		found[c.PatientID] = c
	}
	if rows.Err() != nil {
		return n.contact
	}
	return func(_ context.Context, patientID int64) (Contact, bool, error) {
		c, ok := found[patientID]
		return c, ok, nil
	}
}

// contact loads the patient's contact data; ok is false when there is none.
func (n *Notifier) contact(ctx context.Context, patientID int64) (c Contact, ok bool, err error) {
	c, err = scanContact(n.DB.QueryRow(ctx, `
        SELECT `+contactColumns+` FROM patient_contact WHERE patient_id = $1`, patientID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Contact{}, false, nil
	}
	if err != nil {
		return Contact{}, false, fmt.Errorf("notify: load contact: %w", err)
	}
	return c, true, nil
}

func scanContact(row pgx.Row) (Contact, error) {
	var c Contact
	var email, phone *string
	if err := row.Scan(&c.PatientID, &c.Name, &email, &phone, &c.Language); err != nil {
		return Contact{}, err
	}
	c.Email, c.Phone = deref(email), deref(phone)
	return c, nil
}

// sendTimeout bounds one send, and so how long a claim holds its row lock.
const sendTimeout = 45 * time.Second

// deliver sends m on ch unless the event was already sent there. The row of
// notification_sent is inserted in a transaction that stays open during the
// send and commits only after it succeeded: a concurrent copy of the same
// event waits on the row's key and then finds it sent, a failed send rolls the
// row back. Only a crash between the send and the commit can send twice.
func (n *Notifier) deliver(ctx context.Context, ev outbox.Event, patientID int64, ch channel, to string, m Message) error {
	eventID := ev.ID
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	tx, err := n.DB.Begin(ctx)
	if err != nil {
		return fmt.Errorf("notify: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	tag, err := tx.Exec(ctx, `
        INSERT INTO notification_sent (event_id, channel, patient_id, kind, address) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT DO NOTHING`, eventID, ch.name, patientID, ev.Type, to)
	if err != nil {
		return fmt.Errorf("notify: claim %s/%s: %w", eventID, ch.name, err)
	}
	if tag.RowsAffected() == 0 {
		n.Log.Info("already sent; not again", "event", eventID, "channel", ch.name)
		return nil
	}
	if err := ch.sender.Send(ctx, to, m); err != nil {
		n.Metrics.Failures.WithLabelValues(ch.name).Inc()
		return &sendError{channel: ch.name, err: withoutAddress{err: err, to: to}}
	}
	n.Metrics.Sent.WithLabelValues(ch.name).Inc()
	if err := commit(tx, eventID, ch.name, n.Clock.Now()); err != nil {
		n.Log.Error("sent but not recorded; a redelivery may send it again", "event", eventID,
			"channel", ch.name, "err", err)
		return err
	}
	return nil
}

// commit records the time of the send, even if the send used up the context's
// time; retention counts from it.
func commit(tx pgx.Tx, eventID, channel string, at time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tx.Exec(ctx, `UPDATE notification_sent SET sent_at = $3
        WHERE event_id = $1 AND channel = $2`, eventID, channel, at); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// withoutAddress is a channel's failure with the recipient's address taken
// out of its text: a mail server's or an SMS provider's answer may quote it,
// and the text reaches the log and the dead-letter headers.
type withoutAddress struct {
	err error
	to  string
}

func (e withoutAddress) Error() string {
	if e.to == "" {
		return e.err.Error()
	}
	return strings.ReplaceAll(e.err.Error(), e.to, "[address]")
}
func (e withoutAddress) Unwrap() error { return e.err }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
