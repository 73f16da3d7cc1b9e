-- Reminders before appointments and the waitlist (issue 20).

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

-- +goose Down
DROP INDEX ix_time_slot_start;
DROP TABLE reminder_sent;
