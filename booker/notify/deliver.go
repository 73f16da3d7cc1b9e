package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Contact is where and in which language a patient is written to.
type Contact struct {
	PatientID int64
	Name      string
	Email     string
	Phone     string
	// Language is "de" or "en".
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
        SELECT patient_id, name, email, phone, language FROM patient_contact WHERE patient_id = ANY($1)`, patients)
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

// doctorNames reads the names of the batch's doctors in one query. A name
// only makes the message friendlier, so a failed read is logged and the
// messages name the doctor by number rather than wait.
func (n *Notifier) doctorNames(ctx context.Context, batch []job) map[int64]string {
	ids := make([]int64, 0, len(batch))
	for _, j := range batch {
		if j.err == nil {
			ids = append(ids, j.appt.DoctorID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := n.DB.Query(ctx, `SELECT id, name FROM doctor WHERE id = ANY($1)`, ids)
	if err != nil {
		n.Log.Warn("doctor names not read; messages name doctors by number", "err", err)
		return nil
	}
	names := make(map[int64]string)
	for rows.Next() {
		var id int64
		var name string
		if rows.Scan(&id, &name) == nil {
			names[id] = name
		}
	}
	return names
}

// contact loads the patient's contact data; ok is false when there is none.
func (n *Notifier) contact(ctx context.Context, patientID int64) (c Contact, ok bool, err error) {
	c, err = scanContact(n.DB.QueryRow(ctx, `
        SELECT patient_id, name, email, phone, language FROM patient_contact WHERE patient_id = $1`, patientID))
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
func (n *Notifier) deliver(ctx context.Context, eventID string, ch channel, to string, m Message) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	tx, err := n.DB.Begin(ctx)
	if err != nil {
		return fmt.Errorf("notify: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	tag, err := tx.Exec(ctx, `
        INSERT INTO notification_sent (event_id, channel) VALUES ($1, $2)
        ON CONFLICT DO NOTHING`, eventID, ch.name)
	if err != nil {
		return fmt.Errorf("notify: claim %s/%s: %w", eventID, ch.name, err)
	}
	if tag.RowsAffected() == 0 {
		n.Log.Info("already sent; not again", "event", eventID, "channel", ch.name)
		return nil
	}
	if err := ch.sender.Send(ctx, to, m); err != nil {
		n.Metrics.Failures.WithLabelValues(ch.name).Inc()
		return &sendError{channel: ch.name, err: err}
	}
	n.Metrics.Sent.WithLabelValues(ch.name).Inc()
	if err := commit(tx, eventID, ch.name); err != nil {
		n.Log.Error("sent but not recorded; a redelivery may send it again", "event", eventID,
			"channel", ch.name, "err", err)
		return err
	}
	return nil
}

// commit records the time of the send, even if the send used up the context's time.
func commit(tx pgx.Tx, eventID, channel string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tx.Exec(ctx, `UPDATE notification_sent SET sent_at = clock_timestamp()
        WHERE event_id = $1 AND channel = $2`, eventID, channel); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
