-- Reminders before appointments and the waitlist.

-- +goose Up
-- One row per reminder the job has dealt with: sent (an outbox event was
-- written in the same transaction) or skipped (the appointment was booked
-- after the reminder's time, or a nearer reminder replaced it). The key makes
-- it once per appointment, slot and lead, across bookers and restarts; a
-- moved appointment is at another slot and is reminded again.
CREATE TABLE reminder_sent (
    appointment_id BIGINT      NOT NULL REFERENCES appointment (id),
    slot_id        BIGINT      NOT NULL,
    lead_seconds   INTEGER     NOT NULL CHECK (lead_seconds > 0),
    sent           BOOLEAN     NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (appointment_id, slot_id, lead_seconds)
);

-- The reminder job reads the slots of the coming hours by time. The index
-- costs the schedule's inserts, not a booking's.
CREATE INDEX ix_time_slot_start ON time_slot (start_at);

-- The waitlist: a patient waits for a place of a doctor's day (in the
-- clinic's zone: window_from up to window_to). The line's order is the id,
-- which PostgreSQL hands out, so every booker sees the same order. An entry
-- is WAITING, OFFERED (a hold is offered to its patient: offer_appointment_id)
-- or ended: DONE (its patient booked something in its window), REMOVED.
CREATE TABLE waitlist_entry (
    id                   BIGSERIAL   PRIMARY KEY,
    patient_id           BIGINT      NOT NULL,
    doctor_id            BIGINT      NOT NULL,
    day                  DATE        NOT NULL,
    window_from          TIMESTAMPTZ NOT NULL,
    window_to            TIMESTAMPTZ NOT NULL CHECK (window_to > window_from),
    status               TEXT        NOT NULL DEFAULT 'WAITING'
                         CHECK (status IN ('WAITING', 'OFFERED', 'DONE', 'REMOVED')),
    offer_appointment_id BIGINT,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    ended_at             TIMESTAMPTZ
);

-- A patient waits once per doctor and day.
CREATE UNIQUE INDEX uq_waitlist_active ON waitlist_entry (patient_id, doctor_id, day)
    WHERE status IN ('WAITING', 'OFFERED');
-- The line of a doctor's day, first come first.
CREATE INDEX ix_waitlist_line ON waitlist_entry (doctor_id, window_from, id) WHERE status = 'WAITING';

-- +goose Down
DROP TABLE waitlist_entry;
DROP INDEX ix_time_slot_start;
DROP TABLE reminder_sent;
