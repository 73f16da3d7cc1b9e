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

// FuzzUnpackEnvelope: whatever arrives on the envelope subject, unpacking
// never panics and never yields more commands than an envelope holds, and
// each command it accepts is one a gateway could have made, answered on a
// subject of the envelope's inbox that ends in the command's own token.
func FuzzUnpackEnvelope(f *testing.F) {
	cmd := `{"v":1,"kind":"book","slotId":1001,"patientId":77,"idempotencyKey":"k-1","requestId":"abc"}`
	for _, seed := range []string{
		`{"inbox":"_INBOX.gw1","commands":[` + cmd + `,` + cmd + `]}`,
		`{"inbox":"_INBOX.gw1","commands":[]}`,
		`{"inbox":"slot.state","commands":[` + cmd + `]}`,
		`{"inbox":"_INBOX.gw1","commands":[{"v":1,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":"k","requestId":"a.b"}]}`,
		`{"inbox":"_INBOX.*","commands":[` + cmd + `]}`,
		`{"inbox":"_INBOX.gw1","commands":[1,"x",null]}`,
		`[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := jetstream.Unpack(data)
		if len(entries) > shared.MaxEnvelopeCommands {
			t.Fatalf("%d commands from one envelope, at most %d", len(entries), shared.MaxEnvelopeCommands)
		}
		for _, e := range entries {
			if jetstream.ErrOf(e) != nil {
				continue
			}
			cmd, reply := jetstream.CommandOf(e), jetstream.ReplyOf(e)
			if verr := cmd.Validate(); verr != nil {
				t.Fatalf("accepted %+v, which does not validate: %v", cmd, verr)
			}
			if !strings.HasPrefix(reply, "_INBOX.") || strings.ContainsAny(reply, " *>\t\r\n") || len(reply) > 128 ||
				!strings.HasSuffix(reply, "."+cmd.RequestID) || cmd.RequestID == "" {
				t.Fatalf("accepted reply subject %q for token %q", reply, cmd.RequestID)
			}
		}
	})
}
