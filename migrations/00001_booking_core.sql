-- The booking core of the design card (seed, section 3). Every constraint of the
-- seed is kept: they are the last line of defence when code is wrong.

-- +goose Up
CREATE TABLE time_slot (
    id           BIGSERIAL   PRIMARY KEY,
    doctor_id    BIGINT      NOT NULL,
    start_at     TIMESTAMPTZ NOT NULL,
    end_at       TIMESTAMPTZ NOT NULL,
    capacity     INT         NOT NULL CHECK (capacity > 0),
    booked_count INT         NOT NULL DEFAULT 0,
    CONSTRAINT chk_booked CHECK (booked_count BETWEEN 0 AND capacity),
    CONSTRAINT uq_doctor_start UNIQUE (doctor_id, start_at),
    CONSTRAINT chk_slot_period CHECK (end_at > start_at)
);

-- The seed made idempotency_key globally unique; here it is unique per patient,
-- so that one patient cannot read another's booking by guessing a key.
-- request_fingerprint detects a key reused with another request body.
CREATE TABLE appointment (
    id                  BIGSERIAL   PRIMARY KEY,
    slot_id             BIGINT      NOT NULL REFERENCES time_slot (id),
    patient_id          BIGINT      NOT NULL,
    status              VARCHAR(20) NOT NULL,
    idempotency_key     VARCHAR(64) NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    request_fingerprint TEXT        NOT NULL DEFAULT '',
    cancelled_at        TIMESTAMPTZ,
    CONSTRAINT chk_appointment_status CHECK (status IN ('BOOKED', 'CANCELLED')),
    CONSTRAINT uq_patient_idempotency_key UNIQUE (patient_id, idempotency_key)
);

CREATE UNIQUE INDEX uq_active_patient_slot
    ON appointment (slot_id, patient_id)
    WHERE status = 'BOOKED';

CREATE INDEX ix_appointment_slot ON appointment (slot_id);

-- Written in the same transaction as every booking and cancellation (seed, 6.3);
-- a relay publishes the rows whose published_at is still NULL.
CREATE TABLE outbox_event (
    id           UUID        PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregate    TEXT        NOT NULL,
    aggregate_id BIGINT      NOT NULL,
    type         TEXT        NOT NULL,
    payload      JSONB       NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at TIMESTAMPTZ
);

CREATE INDEX ix_outbox_unpublished
    ON outbox_event (created_at)
    WHERE published_at IS NULL;

-- +goose Down
DROP TABLE outbox_event;
DROP TABLE appointment;
DROP TABLE time_slot;
