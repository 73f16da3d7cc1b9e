package jetstream_test

import (
	"encoding/json"
	"strings"
	"testing"

	"termin/booker/jetstream"
	"termin/shared"
)

// FuzzDecodeCommand: whatever is on the bus, the decoder never panics, and a
// command it accepts is one a gateway could have made: it validates, its key
// and reply subject are safe, and it survives a round trip unchanged.
func FuzzDecodeCommand(f *testing.F) {
	for _, seed := range []struct{ data, reply string }{
		{`{"v":1,"kind":"book","slotId":1001,"patientId":77,"idempotencyKey":"k-1","requestId":"abc","traceId":"req-1"}`, "_INBOX.gw1.abc"},
		{`{"v":1,"kind":"cancel","appointmentId":5}`, ""},
		{`{"v":1,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":"` + strings.Repeat("k", 80) + `"}`, ""},
		{`{"v":1,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":"k"}`, "slot.state.1"},
		{`{"v":1,"kind":"book","slotId":-1,"patientId":5,"idempotencyKey":"k"}`, ""},
		{`{"v":2}`, ""},
		{`[]`, ""},
	} {
		f.Add([]byte(seed.data), seed.reply)
	}
	f.Fuzz(func(t *testing.T, data []byte, reply string) {
		cmd, err := jetstream.DecodeCommand(data, reply)
		if err != nil {
			return
		}
		if verr := cmd.Validate(); verr != nil {
			t.Fatalf("accepted %q, which does not validate: %v", data, verr)
		}
		if cmd.Kind == shared.KindBook && !shared.ValidKey(cmd.IdempotencyKey) {
			t.Fatalf("accepted key %q", cmd.IdempotencyKey)
		}
		if reply != "" && (!strings.HasPrefix(reply, "_INBOX.") || strings.ContainsAny(reply, " *>\t\r\n") || len(reply) > 128) {
			t.Fatalf("accepted reply subject %q", reply)
		}
		again, _ := json.Marshal(cmd)
		back, err := jetstream.DecodeCommand(again, reply)
		if err != nil || !sameCommand(back, cmd) {
			t.Fatalf("%q does not survive a round trip: %+v → %+v (%v)", data, cmd, back, err)
		}
	})
}

// sameCommand compares commands as they travel: an empty slotIds list and
// none are the same command.
func sameCommand(a, b shared.Command) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
