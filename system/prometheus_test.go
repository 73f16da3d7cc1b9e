//go:build failover

package system_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"termin/shared/poll"
)

// prometheus is a real Prometheus, the deployment's alert rules loaded,
// scraping the test's services every second on a port and store of its
// own, and watching its alerts: when each first fired.
type prometheus struct {
	url   string
	mu    sync.Mutex
	fired map[string]time.Time
}

// startPrometheus starts Prometheus on a free port over the targets (job
// name to host:port list), waits until it scrapes them all, and polls its
// alerts every 250 ms until the test ends.
func startPrometheus(t *testing.T, targets map[string][]string) *prometheus {
	t.Helper()
	bin := findPrometheusBinary(t, "prometheus")
	dir := t.TempDir()
	rules, err := filepath.Abs(filepath.Join(repoRoot, "deploy/prometheus/alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var scrape strings.Builder
	for job, hosts := range targets {
		fmt.Fprintf(&scrape, "  - job_name: %s\n    static_configs:\n      - targets: [%q]\n", job, strings.Join(hosts, `", "`))
	}
	conf := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nrule_files:\n  - %s\nscrape_configs:\n%s", rules, scrape.String())
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	log, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &prometheus{url: "http://" + addr, fired: map[string]time.Time{}}
	poll.For(t, 30*time.Second, 250*time.Millisecond, func() error { return p.allUp(len(targets)) })
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go p.watch(stop)
	return p
}

// allUp is nil once every scrape target is up.
func (p *prometheus) allUp(jobs int) error {
	var r struct {
		Data struct {
			ActiveTargets []struct {
				Health string `json:"health"`
				Job    string `json:"scrapePool"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/targets", &r); err != nil {
		return err
	}
	up := map[string]bool{}
	for _, tg := range r.Data.ActiveTargets {
		if tg.Health != "up" {
			return fmt.Errorf("target of %s is %s", tg.Job, tg.Health)
		}
		up[tg.Job] = true
	}
	if len(up) < jobs {
		return fmt.Errorf("%d of %d jobs scraped", len(up), jobs)
	}
	return nil
}

// watch records when each alert is first seen firing in /api/v1/alerts.
func (p *prometheus) watch(stop <-chan struct{}) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		alerts, err := p.alerts()
		if err != nil {
			continue
		}
		now := time.Now()
		p.mu.Lock()
		for _, a := range alerts {
			if name := a.Labels["alertname"]; a.State == "firing" && p.fired[name].IsZero() {
				p.fired[name] = now
			}
		}
		p.mu.Unlock()
	}
}

// alert is one of Prometheus's alerts, pending or firing.
type alert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

// alerts reads the alerts Prometheus holds now.
func (p *prometheus) alerts() ([]alert, error) {
	var r struct {
		Data struct {
			Alerts []alert `json:"alerts"`
		} `json:"data"`
	}
	err := p.get("/api/v1/alerts", &r)
	return r.Data.Alerts, err
}

// firedAt is when the alert was first seen firing; zero if not yet.
func (p *prometheus) firedAt(name string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired[name]
}

// waitFiring waits up to limit after since for the alert to fire and
// returns how long after since it fired, or fails the test.
func (p *prometheus) waitFiring(t *testing.T, name string, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	err := poll.Until(time.Until(since.Add(limit)), 250*time.Millisecond, func() error {
		if p.firedAt(name).IsZero() {
			return fmt.Errorf("%s not firing", name)
		}
		return nil
	})
	if err != nil {
		t.Errorf("alert %s did not fire within %v of its fault (its for: and the scrape and evaluation intervals)", name, limit)
		return 0
	}
	return p.firedAt(name).Sub(since)
}

func (p *prometheus) get(path string, v any) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.url + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// waitQuiet waits up to 30 s until the alert is neither pending nor
// firing, so that what follows is what makes it fire.
func (p *prometheus) waitQuiet(t *testing.T, name string) {
	t.Helper()
	poll.For(t, 30*time.Second, 250*time.Millisecond, func() error {
		alerts, err := p.alerts()
		if err != nil {
			return err
		}
		for _, a := range alerts {
			if a.Labels["alertname"] == name {
				return fmt.Errorf("%s is %s already: %v", name, a.State, a.Labels)
			}
		}
		return nil
	})
}
