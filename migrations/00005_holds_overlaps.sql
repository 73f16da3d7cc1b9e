-- The seed's section 7: holds with expiry, no overlapping appointments of one
-- patient, longer visits. Every new column has a default, so an INSERT naming
-- only the seed's columns still works (such a row has no period and takes no
-- part in the exclusion constraints below).

-- +goose Up
CREATE EXTENSION IF NOT EXISTS btree_gist;

ALTER TABLE appointment DROP CONSTRAINT chk_appointment_status;
ALTER TABLE appointment ADD CONSTRAINT chk_appointment_status
    CHECK (status IN ('BOOKED', 'HELD', 'CANCELLED', 'EXPIRED'));

-- A hold's end: every HELD row has one; a confirmed row clears it.
ALTER TABLE appointment ADD COLUMN expires_at TIMESTAMPTZ;
ALTER TABLE appointment ADD CONSTRAINT chk_hold_expiry
    CHECK (status <> 'HELD' OR expires_at IS NOT NULL);

-- The appointment's time, written by the statement that inserts the row from
-- the slot rows it has locked (no trigger, so no window in which the row
-- exists without it): the slot's times, or the whole span of a longer visit.
ALTER TABLE appointment ADD COLUMN period tstzrange;
-- The slots after slot_id that a longer visit also takes (empty for one slot).
ALTER TABLE appointment ADD COLUMN span_slot_ids BIGINT[] NOT NULL DEFAULT '{}';
-- Set only when every slot the appointment takes has capacity 1: then no
-- other active appointment of that doctor may overlap it.
ALTER TABLE appointment ADD COLUMN solo_doctor_id BIGINT;

-- One place per patient and slot while it is active: a hold counts like a
-- booking. The index keeps its name and still covers every BOOKED row; it is
-- widened to HELD so that a hold and a booking of one slot by one patient
-- collide here (ALREADY_BOOKED) and the batch's holder lookup stays one probe.
DROP INDEX uq_active_patient_slot;
CREATE UNIQUE INDEX uq_active_patient_slot
    ON appointment (slot_id, patient_id)
    WHERE status IN ('BOOKED', 'HELD');

-- No patient has two active appointments whose times overlap, with any doctors.
ALTER TABLE appointment ADD CONSTRAINT ex_patient_overlap
    EXCLUDE USING gist (patient_id WITH =, period WITH &&)
    WHERE (status IN ('BOOKED', 'HELD') AND period IS NOT NULL);

-- No two active appointments of one doctor overlap where the doctor sees one
-- patient at a time. Capacity-10 vaccination slots legitimately hold ten
-- overlapping appointments: their rows leave solo_doctor_id NULL and are
-- bounded by booked_count alone.
ALTER TABLE appointment ADD CONSTRAINT ex_doctor_overlap
    EXCLUDE USING gist (solo_doctor_id WITH =, period WITH &&)
    WHERE (status IN ('BOOKED', 'HELD') AND solo_doctor_id IS NOT NULL);

-- The expiry job's work list: only live holds are in it.
CREATE INDEX ix_appointment_hold_expiry ON appointment (expires_at) WHERE status = 'HELD';

-- +goose Down
DROP INDEX ix_appointment_hold_expiry;
ALTER TABLE appointment DROP CONSTRAINT ex_doctor_overlap;
ALTER TABLE appointment DROP CONSTRAINT ex_patient_overlap;
DROP INDEX uq_active_patient_slot;
CREATE UNIQUE INDEX uq_active_patient_slot ON appointment (slot_id, patient_id) WHERE status = 'BOOKED';
ALTER TABLE appointment DROP CONSTRAINT chk_hold_expiry;
ALTER TABLE appointment DROP COLUMN solo_doctor_id;
ALTER TABLE appointment DROP COLUMN span_slot_ids;
ALTER TABLE appointment DROP COLUMN period;
ALTER TABLE appointment DROP COLUMN expires_at;
ALTER TABLE appointment DROP CONSTRAINT chk_appointment_status;
ALTER TABLE appointment ADD CONSTRAINT chk_appointment_status CHECK (status IN ('BOOKED', 'CANCELLED'));
