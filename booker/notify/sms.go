package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Webhook sends SMS through a provider's HTTP webhook: a JSON POST of
// {"to","text","reference"} with Authorization: Bearer <Token>. Any 2xx answer
// is success; the reference (the event id, also sent as Idempotency-Key) lets
// a provider drop a repeat.
type Webhook struct {
	URL   string
	Token string
	// Client defaults to one with a 15 s timeout.
	Client *http.Client
}

var defaultClient = &http.Client{Timeout: 15 * time.Second}

// Send posts the SMS text of m for the phone number to.
func (w *Webhook) Send(ctx context.Context, to string, m Message) error {
	body, err := json.Marshal(map[string]string{"to": to, "text": m.Short, "reference": m.Ref})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("sms: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", m.Ref+"."+ChannelSMS)
	if w.Token != "" {
		req.Header.Set("Authorization", "Bearer "+w.Token)
	}
	client := w.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("sms: %w", err)
	}
	defer resp.Body.Close()
	// The answer's text is not kept: a provider may quote the number and
	// the message, which must not reach the log.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("sms: provider answered %s", resp.Status)
	}
	return nil
}
