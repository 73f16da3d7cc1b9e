package jetstream_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"termin/gateway/jetstream"
)

func TestDecodeStatesRefusesImpossibleStates(t *testing.T) {
	many := "[" + strings.Repeat(`{"slotId":1,"left":0},`, 4096) + `{"slotId":1,"left":0}]`
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"one full slot", `{"slotId":7,"left":0,"holders":[1,2]}`, true},
		{"a batch", `[{"slotId":7,"left":1,"doctorId":3,"startAt":"2026-12-04T07:00:00Z"},{"slotId":8,"left":0}]`, true},
		{"slot id 0", `{"slotId":0,"left":0}`, false},
		{"negative places", `{"slotId":7,"left":-5}`, false},
		{"negative doctor", `{"slotId":7,"doctorId":-1,"left":0}`, false},
		{"holders of a slot with room", `{"slotId":7,"left":2,"holders":[1]}`, false},
		{"one bad state spoils the batch", `[{"slotId":7,"left":0},{"slotId":-1,"left":0}]`, false},
		{"too many states", many, false},
		{"not JSON", `{"slotId":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jetstream.DecodeStates([]byte(tt.data))
			if (err == nil) != tt.ok {
				t.Errorf("error %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestDecodeAttemptsBoundsTheMessage(t *testing.T) {
	one := binary.BigEndian.AppendUint64(nil, 77)
	one = binary.BigEndian.AppendUint64(one, 9)
	one = binary.BigEndian.AppendUint64(one, 1_800_000_000_000_000_000)
	for _, tt := range []struct {
		data []byte
		n    int
		ok   bool
	}{
		{one, 1, true},
		{append(one, one...), 2, true},
		{one[:23], 0, false},
		{append(one, 1), 0, false},
		{make([]byte, 24*65537), 0, false},
	} {
		t.Run(fmt.Sprint(len(tt.data)), func(t *testing.T) {
			got, err := jetstream.DecodeAttempts(tt.data)
			if (err == nil) != tt.ok || len(got) != tt.n {
				t.Errorf("%d attempts, error %v; want %d, ok=%v", len(got), err, tt.n, tt.ok)
			}
		})
	}
}
