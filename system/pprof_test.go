package system_test

import (
	"net/http"
	"testing"

	gatewayapp "termin/gateway/app"
)

// TestGatewayProfilesOnlyOnTheirOwnAddress: with GATEWAY_PPROF_ADDR the
// gateway serves Go's profiles there, and never on the API's port, which
// faces the clients.
func TestGatewayProfilesOnlyOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	gw := s.startGatewayWith(func(c *gatewayapp.Config) { c.PprofAddr = "127.0.0.1:0" })
	if s.gateway.PprofAddr() != "" {
		t.Errorf("a gateway without PprofAddr serves profiles on %s", s.gateway.PprofAddr())
	}
	tests := []struct {
		url  string
		want int
	}{
		{"http://" + gw.PprofAddr() + "/debug/pprof/", http.StatusOK},
		{"http://" + gw.PprofAddr() + "/debug/pprof/trace?seconds=0.1", http.StatusOK},
		{gw.URL() + "/debug/pprof/", http.StatusNotFound},
		{gw.URL() + "/debug/pprof/trace?seconds=0.1", http.StatusNotFound},
	}
	for _, tt := range tests {
		res, err := http.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("GET %s = %d, want %d", tt.url, res.StatusCode, tt.want)
		}
	}
}
