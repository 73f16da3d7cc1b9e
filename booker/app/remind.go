package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"termin/booker/remind"
)

// defaultReminders are the leads of the reminders when REMINDERS is not set.
const defaultReminders = "24h,2h"

// RemindConfig sets the reminders before appointments.
type RemindConfig struct {
	// Leads is a comma-separated list of durations before the start, e.g.
	// "24h,2h"; empty means that default, "0" or "off" turns reminders off.
	Leads string
	// Every is how often the job looks for due reminders; 0 means 1 min.
	Every time.Duration
}

// parseLeads reads the leads: each a positive duration of whole seconds, up
// to 30 days, no two alike.
func parseLeads(s string) ([]time.Duration, error) {
	s = strings.TrimSpace(or(s, defaultReminders))
	if s == "0" || strings.EqualFold(s, "off") {
		return nil, nil
	}
	var leads []time.Duration
	for part := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d < time.Minute || d > 30*24*time.Hour || d%time.Second != 0 || slices.Contains(leads, d) {
			return nil, fmt.Errorf("REMINDERS: %q is not a list of distinct durations from 1m to 720h", s)
		}
		leads = append(leads, d)
	}
	return leads, nil
}

// reminderJob is the job of this booker, or nil when reminders are off.
func (a *App) reminderJob() (*remind.Job, error) {
	leads, err := parseLeads(a.cfg.Remind.Leads)
	if err != nil || leads == nil {
		return nil, err
	}
	return &remind.Job{DB: a.db, Leads: leads, Every: a.cfg.Remind.Every, Log: a.cfg.Logger, Now: a.cfg.Clock.Now}, nil
}
