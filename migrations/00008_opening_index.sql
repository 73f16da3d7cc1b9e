-- The gateways warm their caches before an opening: they ask which openings
-- come within the next minutes and load those slots in one read each. Only
-- slots with an opening carry a finite opens_at, so the index stays small; the
-- id lets a gateway read only the slots added to an opening since it looked.

-- +goose Up
CREATE INDEX ix_time_slot_opening ON time_slot (opens_at, id) WHERE opens_at > '-infinity';

-- +goose Down
DROP INDEX ix_time_slot_opening;
