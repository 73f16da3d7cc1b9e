-- Who a patient is at a sign-in provider: an OpenID Connect token's issuer
-- and subject name one person, linked here to the patient id the booking
-- tables use. The first sign-in of a patient creates the link (and the
-- patient's id); erasure ends it, so that signing in again later makes a
-- new patient with nothing of the old one.
--
-- New ids come from patient_id_seq, which starts at 1,000,000,000: bearer
-- tokens signed with the service secret name patient ids directly (the
-- load test's, the demo patient 77), and an id a provider's person gets must
-- not be one of theirs.

-- +goose Up
CREATE SEQUENCE patient_id_seq START WITH 1000000000;

CREATE TABLE patient_identity (
    issuer     TEXT        NOT NULL CHECK (length(issuer) BETWEEN 1 AND 512),
    subject    TEXT        NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    patient_id BIGINT      NOT NULL UNIQUE CHECK (patient_id > 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);

-- +goose Down
DROP TABLE patient_identity;
DROP SEQUENCE patient_id_seq;
