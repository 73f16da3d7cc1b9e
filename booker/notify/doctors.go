package notify

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DoctorNames finds doctors' names for a batch of events. A doctor it does not
// know is missing from the map, and the message names the doctor's number.
type DoctorNames interface {
	Names(ctx context.Context, ids []int64) map[int64]string
}

// DoctorCache reads names from the doctor table and keeps them for TTL, so
// that the many confirmations of one opening cost no read at all: a practice
// has few doctors and renames them seldom. A failed read (or a database
// without the table) leaves the names out for that batch; a message with the
// doctor's number is better than none.
type DoctorCache struct {
	DB *pgxpool.Pool
	// TTL is how long a name (or its absence) is kept; 0 means 1 min.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	names map[int64]cachedName
}

type cachedName struct {
	name string
	at   time.Time
}

// Names returns the names of ids, reading the ones not in the cache in one query.
func (d *DoctorCache) Names(ctx context.Context, ids []int64) map[int64]string {
	now := d.now()
	out := make(map[int64]string, len(ids))
	var missing []int64
	d.mu.Lock()
	for _, id := range ids {
		c, ok := d.names[id]
		switch {
		case ok && now.Sub(c.at) < d.ttl():
			if c.name != "" {
				out[id] = c.name
			}
		case !slices.Contains(missing, id):
			missing = append(missing, id)
		}
	}
	d.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	read, err := d.read(ctx, missing)
	if err != nil && !undefinedTable(err) {
		return out // not cached: the next batch asks again
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.names == nil {
		d.names = make(map[int64]cachedName)
	}
	for _, id := range missing {
		d.names[id] = cachedName{name: read[id], at: now}
		if read[id] != "" {
			out[id] = read[id]
		}
	}
	return out
}

func (d *DoctorCache) read(ctx context.Context, ids []int64) (map[int64]string, error) {
	rows, err := d.DB.Query(ctx, `SELECT id, name FROM doctor WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		found[id] = name
	}
	return found, rows.Err()
}

// undefinedTable is a database whose schema has no doctor table yet: every
// doctor is then unnamed, which is worth remembering for the TTL.
func undefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}

func (d *DoctorCache) ttl() time.Duration {
	if d.TTL > 0 {
		return d.TTL
	}
	return time.Minute
}

func (d *DoctorCache) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}
