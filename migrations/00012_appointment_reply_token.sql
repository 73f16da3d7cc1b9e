-- A plain booking (one slot, no hold, no longer visit) has no decision in the
-- booker's decisions bucket: its row, committed with its patient and key, is
-- its record. reply_token is the reply token of the command that made it, set
-- only on such rows, so that a gateway reading the row for a repeat or a
-- duplicate knows the decision is there (the token is set) and whether it was
-- its own command's (the token is its own). NULL on every other row, and on
-- rows made before this column: their decisions are in the bucket.

-- +goose Up
ALTER TABLE appointment ADD COLUMN reply_token TEXT;

-- +goose Down
ALTER TABLE appointment DROP COLUMN reply_token;
