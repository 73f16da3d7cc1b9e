-- The waitlist's order is an entry's turn rather than its id: a patient who
-- lets an offer expire stays on the list but goes to the back of the line
-- (a new turn), while the entry keeps the id the patient knows it by. The
-- existing entries keep their order (turn = id); the sequence goes on past
-- every id, so new turns come after them.

-- +goose Up
CREATE SEQUENCE waitlist_entry_turn_seq;
ALTER TABLE waitlist_entry ADD COLUMN turn BIGINT;
UPDATE waitlist_entry SET turn = id;
SELECT setval('waitlist_entry_turn_seq', greatest((SELECT max(id) FROM waitlist_entry), 1));
ALTER TABLE waitlist_entry ALTER COLUMN turn SET DEFAULT nextval('waitlist_entry_turn_seq'),
                           ALTER COLUMN turn SET NOT NULL;
ALTER SEQUENCE waitlist_entry_turn_seq OWNED BY waitlist_entry.turn;
DROP INDEX ix_waitlist_line;
-- The line of a doctor's day, by turn.
CREATE INDEX ix_waitlist_line ON waitlist_entry (doctor_id, window_from, turn) WHERE status = 'WAITING';

-- +goose Down
DROP INDEX ix_waitlist_line;
CREATE INDEX ix_waitlist_line ON waitlist_entry (doctor_id, window_from, id) WHERE status = 'WAITING';
ALTER TABLE waitlist_entry DROP COLUMN turn;
