-- Confirmations by e-mail and SMS. The notifier reads a patient's
-- contact data and language from patient_contact, and records in
-- notification_sent each event it has delivered on each channel, so that a
-- redelivered event sends nothing twice.

-- +goose Up
CREATE TABLE patient_contact (
    patient_id BIGINT PRIMARY KEY,
    name       TEXT   NOT NULL DEFAULT '',
    email      TEXT,
    phone      TEXT,
    language   TEXT   NOT NULL DEFAULT 'de' CHECK (language IN ('de', 'en'))
);

-- One row per (outbox event, channel), written after a successful send and
-- looked up before each send.
CREATE TABLE notification_sent (
    event_id UUID        NOT NULL,
    channel  TEXT        NOT NULL,
    sent_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, channel)
);

-- +goose Down
DROP TABLE notification_sent;
DROP TABLE patient_contact;
