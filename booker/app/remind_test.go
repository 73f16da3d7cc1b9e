package app_test

import (
	"strings"
	"testing"

	"termin/booker/app"
)

func TestRemindersFlag(t *testing.T) {
	tests := []struct {
		value string
		ok    bool
	}{
		{"24h,2h", true},
		{"48h, 30m", true},
		{"0", true},
		{"off", true},
		{"2h,2h", false},
		{"30s", false},
		{"-1h", false},
		{"1000h", false},
		{"soon", false},
	}
	for _, tt := range tests {
		_, err := app.ParseFlags([]string{"-reminders", tt.value})
		if tt.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "REMINDERS")) {
			t.Errorf("%q: error %v, want ok=%v", tt.value, err, tt.ok)
		}
	}
}
