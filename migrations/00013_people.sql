-- The people around a booking: a patient's contact details with consent per
-- channel and insurance, the practice a doctor belongs to, a practice's
-- blocked slots and its record of who came, the log of who read whose
-- appointments, and what a patient was sent (for the export).
--
-- Consent columns default to true so that a contact row written by hand,
-- naming only the older columns, keeps receiving messages as before; the API
-- always writes consent explicitly (given or withdrawn, and when).

-- +goose Up
ALTER TABLE patient_contact
    ADD COLUMN insurance        TEXT        CHECK (insurance IN ('GKV', 'PKV', 'SELF')),
    ADD COLUMN email_consent    BOOLEAN     NOT NULL DEFAULT true,
    ADD COLUMN email_consent_at TIMESTAMPTZ,
    ADD COLUMN sms_consent      BOOLEAN     NOT NULL DEFAULT true,
    ADD COLUMN sms_consent_at   TIMESTAMPTZ,
    ADD COLUMN updated_at       TIMESTAMPTZ NOT NULL DEFAULT now();

-- A doctor's practice (staff tokens are scoped to one) and its address,
-- which the patient page shows before a booking is sent. Doctors written
-- before practices existed belong to practice 1.
ALTER TABLE doctor
    ADD COLUMN practice_id BIGINT NOT NULL DEFAULT 1 CHECK (practice_id > 0),
    ADD COLUMN address     TEXT   NOT NULL DEFAULT '';

-- A slot blocked by the practice keeps its opening here while its opens_at
-- is 'infinity' (closed to bookings and slot lists, as a withdrawn slot);
-- unblocking puts it back.
ALTER TABLE time_slot ADD COLUMN blocked_opens_at TIMESTAMPTZ;

-- A slot reserved for one insurance (statutory GKV, private PKV, self-payers
-- SELF) by its plan's range; NULL takes any patient.
ALTER TABLE time_slot ADD COLUMN insurance TEXT CHECK (insurance IN ('GKV', 'PKV', 'SELF'));

-- Whether the patient came, marked by the practice once the visit started.
ALTER TABLE appointment ADD COLUMN attendance TEXT CHECK (attendance IN ('ATTENDED', 'NO_SHOW'));

-- One row per patient shown to a doctor, staff or an admin: who read whose
-- appointments, when and why. The patient reads their own rows.
CREATE TABLE access_log (
    id          BIGSERIAL   PRIMARY KEY,
    patient_id  BIGINT      NOT NULL,
    reader_role TEXT        NOT NULL CHECK (reader_role IN ('doctor', 'staff', 'admin')),
    reader_id   TEXT        NOT NULL,
    reason      TEXT        NOT NULL,
    doctor_id   BIGINT,
    day         DATE,
    read_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ix_access_log_patient ON access_log (patient_id, read_at);
CREATE INDEX ix_access_log_read_at ON access_log (read_at);

-- Whom a message went to and where, for the patient's export; erased with
-- the patient.
ALTER TABLE notification_sent
    ADD COLUMN patient_id BIGINT,
    ADD COLUMN kind       TEXT,
    ADD COLUMN address    TEXT;
CREATE INDEX ix_notification_sent_patient ON notification_sent (patient_id) WHERE patient_id IS NOT NULL;

-- An erased patient's past visits keep a pseudonym of their own: a negative
-- number from this sequence, never a patient's id.
CREATE SEQUENCE erased_patient_seq;

-- +goose Down
DROP SEQUENCE erased_patient_seq;
DROP INDEX ix_notification_sent_patient;
ALTER TABLE notification_sent DROP COLUMN address, DROP COLUMN kind, DROP COLUMN patient_id;
DROP TABLE access_log;
ALTER TABLE appointment DROP COLUMN attendance;
ALTER TABLE time_slot DROP COLUMN insurance, DROP COLUMN blocked_opens_at;
ALTER TABLE doctor DROP COLUMN address, DROP COLUMN practice_id;
ALTER TABLE patient_contact
    DROP COLUMN updated_at, DROP COLUMN sms_consent_at, DROP COLUMN sms_consent,
    DROP COLUMN email_consent_at, DROP COLUMN email_consent, DROP COLUMN insurance;
