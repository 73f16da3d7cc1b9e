package testkit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// SMS is one request the webhook received.
type SMS struct {
	To, Text, Reference string
	Authorization       string
}

// SMSServer is an httptest server standing in for the SMS provider.
type SMSServer struct {
	URL    string
	mu     sync.Mutex
	sms    []SMS
	status int
}

// StartSMS starts the webhook; it answers 202 until told otherwise.
func StartSMS(t testing.TB) *SMSServer {
	t.Helper()
	s := &SMSServer{status: http.StatusAccepted}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *SMSServer) serve(w http.ResponseWriter, r *http.Request) {
	var body SMS
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&body) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	body.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status/100 == 2 {
		s.sms = append(s.sms, body)
	}
	w.WriteHeader(s.status)
}

// Answer sets the status of the following answers.
func (s *SMSServer) Answer(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Messages returns the accepted SMS so far.
func (s *SMSServer) Messages() []SMS {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SMS(nil), s.sms...)
}
