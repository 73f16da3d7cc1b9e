// Package replication reports how the PostgreSQL primary the booker writes
// to replicates, for the operator's dashboards and alerts. It queries on a
// connection of its own, apart from the decisions' pool, because the fault it
// exists to show (commits waiting for a standby that is gone) holds every
// connection of that pool.
package replication

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector reports, at each scrape, how the primary the booker
// writes to replicates: commits waiting for a synchronous standby, the
// synchronous standbys streaming, and the WAL timeline, which grows by one at
// each promotion. A promoted standby that kept synchronous_standby_names
// from its former primary makes every commit wait for a standby that no
// longer exists, with no error anywhere: these gauges are how an operator
// sees it. It reads on a pool of its own, one connection: when commits hang,
// the booker's own pool is all held by them.
type Collector struct {
	pool                      *pgxpool.Pool
	waiting, standbys, timeln *prometheus.Desc
}

// replicationQuery reads the three gauges in one round trip. pg_stat_activity
// shows other sessions' wait events to their own role or to members of
// pg_read_all_stats (pg_monitor); pg_stat_replication's sync_state likewise.
const replicationQuery = `SELECT
  (SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'),
  (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')),
  CASE WHEN pg_is_in_recovery() THEN 0
       ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END`

// NewCollector opens its one connection to url lazily (a
// server down now does not keep the booker from starting).
func NewCollector(url string) (*Collector, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns, cfg.MinConns = 1, 0
	cfg.ConnConfig.RuntimeParams["application_name"] = "termin-booker-replication"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Collector{pool: pool,
		waiting: prometheus.NewDesc("booker_db_commits_waiting_standby",
			"Connections on the primary whose commit waits for a synchronous standby (wait_event SyncRep).", nil, nil),
		standbys: prometheus.NewDesc("booker_db_sync_standbys",
			"Standbys streaming from the primary as synchronous (sync or quorum) standbys.", nil, nil),
		timeln: prometheus.NewDesc("booker_db_timeline",
			"WAL timeline of the primary the booker writes to; it grows by one at each promotion.", nil, nil),
	}, nil
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.waiting
	ch <- c.standbys
	ch <- c.timeln
}

// Collect implements prometheus.Collector. A server that does not answer
// within a second reports nothing: the gauges go missing rather than lie,
// and booker_ready says the database is gone.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var waiting, standbys, timeline int64
	if err := c.pool.QueryRow(ctx, replicationQuery).Scan(&waiting, &standbys, &timeline); err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, float64(waiting))
	ch <- prometheus.MustNewConstMetric(c.standbys, prometheus.GaugeValue, float64(standbys))
	ch <- prometheus.MustNewConstMetric(c.timeln, prometheus.GaugeValue, float64(timeline))
}

// Close closes the collector's connection.
func (c *Collector) Close() { c.pool.Close() }
