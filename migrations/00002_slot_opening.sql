-- A slot may carry the moment it opens for booking (the 07:00 opening); the
-- default means "open now", so rows written without it behave as before.

-- +goose Up
ALTER TABLE time_slot ADD COLUMN opens_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity';

-- +goose Down
ALTER TABLE time_slot DROP COLUMN opens_at;
