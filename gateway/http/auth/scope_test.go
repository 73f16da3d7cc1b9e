package auth_test

import (
	"context"
	"errors"
	"testing"

	"termin/gateway"
	"termin/gateway/http/auth"
)

// practices is a fake auth.Practices: doctor → practice, and an error for
// every lookup when err is set.
type practices struct {
	of  map[int64]int64
	err error
}

func (p practices) DoctorPractice(_ context.Context, doctorID int64) (int64, bool, error) {
	if p.err != nil {
		return 0, false, p.err
	}
	id, ok := p.of[doctorID]
	return id, ok, nil
}

// TestInScope holds the scope rules in one table: an admin sees every
// doctor, a doctor only itself, staff only the doctors their practice has
// (a doctor of no practice is nobody's), a patient none; a failed lookup is
// an error, never a yes.
func TestInScope(t *testing.T) {
	t.Parallel()
	down := errors.New("database down")
	known := practices{of: map[int64]int64{10: 5, 11: 6}}
	tests := []struct {
		name   string
		who    auth.Principal
		doctor int64
		reads  practices
		want   error
	}{
		{"admin", auth.Principal{Admin: true, Role: auth.RoleAdmin}, 11, known, nil},
		{"doctor itself", auth.Principal{Role: auth.RoleDoctor, DoctorID: 10}, 10, known, nil},
		{"doctor another", auth.Principal{Role: auth.RoleDoctor, DoctorID: 10}, 11, known, auth.ErrOutOfScope},
		{"staff of the practice", auth.Principal{Role: auth.RoleStaff, PracticeID: 5}, 10, known, nil},
		{"staff of another practice", auth.Principal{Role: auth.RoleStaff, PracticeID: 5}, 11, known, auth.ErrOutOfScope},
		{"staff, doctor of no practice", auth.Principal{Role: auth.RoleStaff, PracticeID: 5}, 12, known, auth.ErrOutOfScope},
		{"staff, lookup fails", auth.Principal{Role: auth.RoleStaff, PracticeID: 5}, 10, practices{err: down}, down},
		{"patient", auth.Principal{PatientID: 77}, 10, known, auth.ErrNotPractice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := auth.InScope(context.Background(), tt.reads, tt.who, tt.doctor); !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
				t.Errorf("InScope(%+v, doctor %d) = %v, want %v", tt.who, tt.doctor, got, tt.want)
			}
		})
	}
}

// TestAuthorize lets an admin act for anyone and a patient for itself only.
func TestAuthorize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		who     auth.Principal
		patient int64
		want    error
	}{
		{"admin", auth.Principal{Admin: true}, 77, nil},
		{"patient itself", auth.Principal{PatientID: 77}, 77, nil},
		{"another patient", auth.Principal{PatientID: 78}, 77, gateway.ErrForbidden},
		{"doctor", auth.Principal{Role: auth.RoleDoctor, DoctorID: 10}, 77, gateway.ErrForbidden},
	}
	for _, tt := range tests {
		if got := auth.Authorize(tt.who, tt.patient); !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
			t.Errorf("%s: Authorize = %v, want %v", tt.name, got, tt.want)
		}
	}
}
