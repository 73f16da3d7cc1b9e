package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream"
)

// TestUnplacedWaitsOnlyForAFormingCluster: the errors of a cluster still
// forming are waited out, and a server without JetStream, or any other
// refusal, is not.
func TestUnplacedWaitsOnlyForAFormingCluster(t *testing.T) {
	api := func(code natsjs.ErrorCode, desc string) error {
		return &natsjs.APIError{Code: 503, ErrorCode: code, Description: desc}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"a peer not heard from yet", api(10005, "no suitable peers for placement, peer offline"), true},
		{"no meta leader yet", api(10008, "JetStream system temporarily unavailable"), true},
		{"wrapped by Setup", fmt.Errorf("jetstream: booking stream: %w", api(10008, "")), true},
		{"a try that timed out", fmt.Errorf("jetstream: booking stream: %w", context.DeadlineExceeded), true},
		{"a stream of other subjects", api(10065, "subjects overlap with an existing stream"), false},
		{"a server without JetStream", nats.ErrNoResponders, false},
		{"the start given up", context.Canceled, false},
		{"anything else", errors.New("nats: authorization violation"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jetstream.Unplaced(tt.err); got != tt.want {
				t.Fatalf("Unplaced(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
