package shared_test

import (
	"testing"

	"termin/shared"
)

func TestNamespaceNames(t *testing.T) {
	tests := []struct {
		ns                     shared.Namespace
		stream, subject, local string
		owns, ownsBucket       bool
	}{
		{"", "BOOKINGS", "slot.state", "slot.state", false, false},
		{"praxis2", "praxis2_BOOKINGS", "praxis2.slot.state", "slot.state", true, true},
	}
	for _, tt := range tests {
		if got := tt.ns.Name("BOOKINGS"); got != tt.stream {
			t.Errorf("%q: stream %q, want %q", tt.ns, got, tt.stream)
		}
		subject := tt.ns.Subject("slot.state")
		if subject != tt.subject || tt.ns.Local(subject) != tt.local {
			t.Errorf("%q: subject %q (local %q), want %q (%q)", tt.ns, subject, tt.ns.Local(subject), tt.subject, tt.local)
		}
		if tt.ns.Owns(tt.ns.Name("EVENTS")) != tt.owns || tt.ns.Owns("KV_"+tt.ns.Name("booking-decisions")) != tt.ownsBucket {
			t.Errorf("%q: does not own its own streams", tt.ns)
		}
	}
	if shared.Namespace("praxis2").Owns("praxis20_BOOKINGS") || shared.Namespace("praxis2").Owns("BOOKINGS") {
		t.Error("a namespace owns another's or the default's streams")
	}
}

func TestNamespaceSyntax(t *testing.T) {
	for ns, ok := range map[shared.Namespace]bool{
		"": true, "praxis-2_b": true, "a.b": false, "a b": false, "a*": false, "a>": false,
		"x123456789012345678901234567890123": false,
	} {
		if err := ns.Valid(); (err == nil) != ok {
			t.Errorf("Valid(%q) = %v, want ok=%v", ns, err, ok)
		}
	}
}
