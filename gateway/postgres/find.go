package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway/find"
)

// nextFreeSQL is the part of a search that reads each found doctor's next
// free times from free_slot (never time_slot): an index range scan of
// ix_free_slot_doctor per doctor of the page, from now, that stops at the
// third slot open now for the patient's insurance. $1 is now, $2 the
// insurance asked for and $3 the patient whose profile's insurance counts
// when none is asked for.
var nextFreeSQL = `
SELECT page.*, nf.ids, nf.starts FROM page
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(f.slot_id ORDER BY f.start_at), '{}') AS ids,
           coalesce(array_agg(f.start_at ORDER BY f.start_at), '{}') AS starts
    FROM (SELECT f.slot_id, f.start_at FROM free_slot f
          WHERE f.doctor_id = page.id AND f.start_at > $1 AND f.opens_at <= $1
            AND (f.insurance IS NULL OR f.insurance = coalesce(nullif($2, ''),
                 (SELECT c.insurance FROM patient_contact c WHERE c.patient_id = $3)))
          ORDER BY f.start_at LIMIT ` + strconv.Itoa(find.MaxNextFree) + `) AS f
) AS nf
ORDER BY page.id`

// SearchSQL is the one statement a search q runs, with its arguments: only
// the filters q sets are in it, so each combination gets a plan of its own
// that uses its index. A place's filter finds its practices first (by
// ix_practice_city or ix_practice_postcode) and their doctors by
// ix_doctor_practice, rather than joining every doctor's practice.
// Exported for the plans' test.
func SearchSQL(q find.Query, now time.Time) (string, []any) {
	args := []any{now, q.Insurance, q.PatientID, q.After}
	where := []string{"d.id > $4"}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if q.Name != "" {
		add(`d.name_key LIKE '%' || termin_fold($?) || '%'`, escapeLike(q.Name))
	}
	if len(q.Specialties) > 0 {
		add("d.specialty = ANY($?::text[])", q.Specialties)
	}
	if q.Postcode != "" {
		args = append(args, q.Postcode)
		add(`d.practice_id = ANY(ARRAY(SELECT id FROM practice
            WHERE postcode COLLATE "C" >= $`+strconv.Itoa(len(args))+` AND postcode COLLATE "C" < $?))`, prefixEnd(q.Postcode))
	}
	if q.Practice != 0 {
		add("d.practice_id = $?", q.Practice)
	}
	if q.City != "" {
		add("d.practice_id = ANY(ARRAY(SELECT id FROM practice WHERE city_key = termin_fold($?)))", q.City)
	}
	args = append(args, q.Limit)
	sql := `WITH page AS (
    SELECT d.id, d.name, d.specialty, d.address, d.practice_id, coalesce(p.name, '') AS practice_name,
           coalesce(p.street, '') AS street, coalesce(p.postcode, '') AS postcode, coalesce(p.city, '') AS city
    FROM doctor d LEFT JOIN practice p ON p.id = d.practice_id
    WHERE ` + strings.Join(where, " AND ") + `
    ORDER BY d.id LIMIT $` + strconv.Itoa(len(args)) + `
)` + nextFreeSQL
	return sql, args
}

// prefixEnd is the least string after every string that starts with the
// ASCII prefix p, in byte order: a postcode prefix becomes an index range.
func prefixEnd(p string) string {
	return p[:len(p)-1] + string(p[len(p)-1]+1)
}

// escapeLike makes s match itself in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FindDoctors runs the search q: at most q.Limit doctors after q.After, by
// id, each with its practice and next free times.
func (r *Reader) FindDoctors(ctx context.Context, q find.Query) ([]find.Result, error) {
	sql, args := SearchSQL(q, r.now())
	return retry(ctx, func(ctx context.Context) ([]find.Result, error) {
		rows, err := r.pool.Query(ctx, sql, args...)
		if err != nil {
			return nil, fmt.Errorf("postgres: find doctors: %w", err)
		}
		list, err := pgx.CollectRows(rows, scanFound)
		if err != nil {
			return nil, fmt.Errorf("postgres: find doctors: %w", err)
		}
		return list, nil
	})
}

func scanFound(row pgx.CollectableRow) (find.Result, error) {
	var f find.Result
	var ids []int64
	var starts []time.Time
	p := &f.Practice
	err := row.Scan(&f.Doctor.ID, &f.Doctor.Name, &f.Doctor.Specialty, &f.Doctor.Address, &f.Doctor.PracticeID,
		&p.Name, &p.Street, &p.Postcode, &p.City, &ids, &starts)
	p.ID = f.Doctor.PracticeID
	for i := range ids {
		f.NextFree = append(f.NextFree, find.FreeTime{SlotID: ids[i], StartAt: starts[i].UTC()})
	}
	return f, err
}
