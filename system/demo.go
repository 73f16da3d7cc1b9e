package system

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SeedDemo creates five demo doctors with 15-minute slots from 08:00 to 12:00
// (clinic time) on each of the next 14 days; odd doctors have one place per
// slot, even ones ten (a vaccination round). Running it again adds only the
// days that are new.
func SeedDemo(ctx context.Context, url string, zone *time.Location) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("seed demo: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
        INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        SELECT d, t.at, t.at + interval '15 minutes', CASE WHEN d % 2 = 0 THEN 10 ELSE 1 END
        FROM generate_series(1, 5) AS d,
             generate_series(0, 13) AS day,
             generate_series(0, 15) AS k,
             LATERAL (SELECT (((now() AT TIME ZONE $1)::date + day) + time '08:00'
                              + k * interval '15 minutes') AT TIME ZONE $1 AS at) AS t
        ORDER BY day, d, k
        ON CONFLICT (doctor_id, start_at) DO NOTHING`, zone.String())
	if err != nil {
		return fmt.Errorf("seed demo: %w", err)
	}
	return nil
}
