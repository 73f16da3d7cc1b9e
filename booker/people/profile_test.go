package people_test

import (
	"context"
	"testing"
	"time"

	"termin/shared"
)

// TestConsentTimeSaysGivenOrWithdrawn: a channel's consent time is set
// when consent is given and moves when it is withdrawn; consent never
// given has none, so that the page can say "not given" rather than
// "withdrawn".
func TestConsentTimeSaysGivenOrWithdrawn(t *testing.T) {
	for _, tc := range []struct {
		name     string
		consents []bool // the email consent of each put, a minute apart
		wantAt   int    // the put whose time consentAt.email is, -1 none
	}{
		{"never given", []bool{false}, -1},
		{"never given, saved again", []bool{false, false}, -1},
		{"given", []bool{true}, 0},
		{"given at the second put", []bool{false, true}, 1},
		{"given, kept", []bool{true, true}, 0},
		{"withdrawn", []bool{true, false}, 1},
		{"withdrawn, saved again", []bool{true, false, false}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, _ := newStore(t)
			var got shared.Profile
			for i, consent := range tc.consents {
				store.Now = func() time.Time { return testNow.Add(time.Duration(i) * time.Minute) }
				var err error
				got, err = store.PutProfile(context.Background(), shared.Profile{PatientID: 7, Email: "anna@example.org",
					Language: "de", Consent: shared.Consent{Email: consent}})
				if err != nil {
					t.Fatal(err)
				}
			}
			at := got.ConsentAt.Email
			switch {
			case tc.wantAt < 0 && at != nil:
				t.Errorf("consentAt.email = %v, want none", at)
			case tc.wantAt >= 0 && (at == nil || !at.Equal(testNow.Add(time.Duration(tc.wantAt)*time.Minute))):
				t.Errorf("consentAt.email = %v, want the time of put %d", at, tc.wantAt)
			case got.ConsentAt.SMS != nil:
				t.Errorf("consentAt.sms = %v, never given", got.ConsentAt.SMS)
			}
		})
	}
}

// TestProfileInTurkish: Turkish is a language the database takes for a
// patient's messages.
func TestProfileInTurkish(t *testing.T) {
	store, _ := newStore(t)
	got, err := store.PutProfile(context.Background(), shared.Profile{PatientID: 7, Name: "Ayşe Yılmaz", Language: "tr"})
	if err != nil || got.Language != "tr" {
		t.Fatalf("profile in Turkish: %+v, %v", got, err)
	}
	if err := shared.ValidProfile(shared.Profile{Language: "tr"}); err != nil {
		t.Errorf("a Turkish profile is refused: %v", err)
	}
	if err := shared.ValidProfile(shared.Profile{Language: "fr"}); err == nil {
		t.Error("a French profile is taken")
	}
}
