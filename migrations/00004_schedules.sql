-- Working plans. The booker turns a doctor's plan into time_slot
-- rows when an admin puts it, and every day the roll-forward writes the date
-- that opens at the daily opening from the stored plans.

-- +goose Up
CREATE TABLE doctor_schedule (
    doctor_id  BIGINT      PRIMARY KEY,
    plan       JSONB       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per opening that has been rolled forward, inserted in the same
-- transaction as the slots it wrote: the insert is what makes the roll happen
-- once. A second booker's insert waits for the first one's transaction and
-- then finds the row (it commits) or takes over (it rolls back).
CREATE TABLE schedule_roll (
    opening_day   DATE        PRIMARY KEY,
    rolled_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    doctors       INT         NOT NULL DEFAULT 0,
    slots_created INT         NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE schedule_roll;
DROP TABLE doctor_schedule;
