-- Doctors by name: the slot list, the messages and the web page
-- say "Dr. Weber" instead of a number. A doctor without a row is still
-- bookable; only its name is missing. No foreign key from time_slot: slots
-- and plans came first and many installations have none of these rows.

-- +goose Up
CREATE TABLE doctor (
    id         BIGINT      PRIMARY KEY CHECK (id > 0),
    name       TEXT        NOT NULL CHECK (name <> ''),
    specialty  TEXT        NOT NULL DEFAULT '',
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per reschedule that moved an appointment: the patient's key, what
-- it asked for (the fingerprint) and where it moved the appointment from and
-- to. It is written in the transaction that moves the appointment, so a key
-- moves at most once; a repeat is answered from here. The appointment keeps
-- its id: it is the same visit at another time.
CREATE TABLE appointment_reschedule (
    patient_id          BIGINT      NOT NULL,
    idempotency_key     VARCHAR(64) NOT NULL,
    appointment_id      BIGINT      NOT NULL REFERENCES appointment (id),
    from_slot_id        BIGINT      NOT NULL REFERENCES time_slot (id),
    to_slot_id          BIGINT      NOT NULL REFERENCES time_slot (id),
    request_fingerprint TEXT        NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (patient_id, idempotency_key)
);

-- A patient's own list (GET /api/appointments) needs no index of its own:
-- uq_patient_idempotency_key leads with patient_id, and another index would
-- cost every booking's insert.

-- +goose Down
DROP TABLE appointment_reschedule;
DROP TABLE doctor;
