-- Finding a doctor: practices with addresses, doctors by specialty code and
-- by a folded name, and each doctor's free slots kept apart from time_slot so
-- that a search reads a doctor's next free times from a small index instead
-- of the slot table (decision record 0020).

-- +goose Up
-- +goose StatementBegin
-- termin_fold folds a name or city for matching: lower case, umlauts and
-- accents to their base letter, ß to ss, and ae/oe/ue to a/o/u, so that
-- "Muller", "Mueller" and "MÜLLER" all find "Müller". Both sides of a match
-- are folded by it.
CREATE FUNCTION termin_fold(s TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT replace(replace(replace(replace(
        translate(lower(s), 'äöüàáâãåèéêëìíîïòóôõøùúûýÿçñ', 'aouaaaaaeeeeiiiiooooouuuyycn'),
        'ß', 'ss'), 'ae', 'a'), 'oe', 'o'), 'ue', 'u')
$$;
-- +goose StatementEnd

CREATE TABLE practice (
    id         BIGINT      PRIMARY KEY CHECK (id > 0),
    name       TEXT        NOT NULL CHECK (name <> ''),
    street     TEXT        NOT NULL DEFAULT '',
    postcode   TEXT        NOT NULL,
    city       TEXT        NOT NULL,
    city_key   TEXT        GENERATED ALWAYS AS (termin_fold(city)) STORED,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Postcodes compare byte by byte, so that a prefix is a range of the index.
CREATE INDEX ix_practice_postcode ON practice ((postcode COLLATE "C"));
CREATE INDEX ix_practice_city ON practice (city_key);

-- Doctors are found by their folded name and their specialty's code; the
-- German names stored before codes existed become codes.
ALTER TABLE doctor ADD COLUMN name_key TEXT GENERATED ALWAYS AS (termin_fold(name)) STORED;
UPDATE doctor d SET specialty = s.code
FROM (VALUES ('allgemeinmedizin', 'Allgemeinmedizin'), ('innere-medizin', 'Innere Medizin'),
             ('kinderheilkunde', 'Kinder- und Jugendmedizin'), ('frauenheilkunde', 'Frauenheilkunde'),
             ('augenheilkunde', 'Augenheilkunde'), ('hno', 'Hals-Nasen-Ohrenheilkunde'),
             ('dermatologie', 'Dermatologie'), ('orthopaedie', 'Orthopädie'), ('kardiologie', 'Kardiologie'),
             ('neurologie', 'Neurologie'), ('psychiatrie', 'Psychiatrie'), ('urologie', 'Urologie'),
             ('zahnmedizin', 'Zahnmedizin'), ('radiologie', 'Radiologie')) AS s(code, de)
WHERE lower(d.specialty) = lower(s.de);
CREATE INDEX ix_doctor_specialty ON doctor (specialty, id);
CREATE INDEX ix_doctor_practice ON doctor (practice_id, id);

-- One row per slot that has a free place and is not blocked or withdrawn
-- (opens_at 'infinity'), whether or not it has opened or started: the
-- search filters those by time. Kept by the triggers below in the
-- transaction that changes the slot, whichever path changes it.
CREATE TABLE free_slot (
    slot_id   BIGINT      PRIMARY KEY,
    doctor_id BIGINT      NOT NULL,
    start_at  TIMESTAMPTZ NOT NULL,
    opens_at  TIMESTAMPTZ NOT NULL,
    insurance TEXT
);
CREATE INDEX ix_free_slot_doctor ON free_slot (doctor_id, start_at) INCLUDE (opens_at, insurance, slot_id);

INSERT INTO free_slot (slot_id, doctor_id, start_at, opens_at, insurance)
SELECT id, doctor_id, start_at, opens_at, insurance FROM time_slot
WHERE booked_count < capacity AND opens_at <> 'infinity';

-- +goose StatementBegin
CREATE FUNCTION free_slot_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO free_slot (slot_id, doctor_id, start_at, opens_at, insurance)
    SELECT id, doctor_id, start_at, opens_at, insurance FROM new_slots
    WHERE booked_count < capacity AND opens_at <> 'infinity';
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION free_slot_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.booked_count < NEW.capacity AND NEW.opens_at <> 'infinity' THEN
        INSERT INTO free_slot (slot_id, doctor_id, start_at, opens_at, insurance)
        VALUES (NEW.id, NEW.doctor_id, NEW.start_at, NEW.opens_at, NEW.insurance)
        ON CONFLICT (slot_id) DO UPDATE SET doctor_id = EXCLUDED.doctor_id, start_at = EXCLUDED.start_at,
            opens_at = EXCLUDED.opens_at, insurance = EXCLUDED.insurance;
    ELSE
        DELETE FROM free_slot WHERE slot_id = OLD.id;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION free_slot_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM free_slot f USING old_slots o WHERE f.slot_id = o.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION free_slot_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE free_slot;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER trg_free_slot_insert AFTER INSERT ON time_slot
    REFERENCING NEW TABLE AS new_slots FOR EACH STATEMENT EXECUTE FUNCTION free_slot_inserted();
-- A booking that leaves places free changes nothing here: the trigger runs
-- only when a slot turns free or full, or its time, opening or insurance
-- changes.
CREATE TRIGGER trg_free_slot_update AFTER UPDATE ON time_slot FOR EACH ROW
    WHEN ((OLD.booked_count < OLD.capacity AND OLD.opens_at <> 'infinity')
              IS DISTINCT FROM (NEW.booked_count < NEW.capacity AND NEW.opens_at <> 'infinity')
          OR (OLD.start_at, OLD.opens_at, OLD.insurance, OLD.doctor_id)
              IS DISTINCT FROM (NEW.start_at, NEW.opens_at, NEW.insurance, NEW.doctor_id))
    EXECUTE FUNCTION free_slot_updated();
CREATE TRIGGER trg_free_slot_delete AFTER DELETE ON time_slot
    REFERENCING OLD TABLE AS old_slots FOR EACH STATEMENT EXECUTE FUNCTION free_slot_deleted();
CREATE TRIGGER trg_free_slot_truncate AFTER TRUNCATE ON time_slot
    FOR EACH STATEMENT EXECUTE FUNCTION free_slot_truncated();

-- A day the practice blocked, kept so that slots a plan writes into it
-- later are written blocked too.
CREATE TABLE blocked_day (
    doctor_id BIGINT      NOT NULL,
    from_at   TIMESTAMPTZ NOT NULL,
    to_at     TIMESTAMPTZ NOT NULL CHECK (to_at > from_at),
    PRIMARY KEY (doctor_id, from_at)
);

-- +goose Down
DROP TABLE blocked_day;
DROP TRIGGER trg_free_slot_truncate ON time_slot;
DROP TRIGGER trg_free_slot_delete ON time_slot;
DROP TRIGGER trg_free_slot_update ON time_slot;
DROP TRIGGER trg_free_slot_insert ON time_slot;
DROP FUNCTION free_slot_truncated();
DROP FUNCTION free_slot_deleted();
DROP FUNCTION free_slot_updated();
DROP FUNCTION free_slot_inserted();
DROP TABLE free_slot;
DROP INDEX ix_doctor_practice;
DROP INDEX ix_doctor_specialty;
ALTER TABLE doctor DROP COLUMN name_key;
DROP TABLE practice;
DROP FUNCTION termin_fold(TEXT);
