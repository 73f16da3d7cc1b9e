package postgres

import (
	"context"
	"fmt"

	"termin/booker"
)

// PutDoctor stores the doctor's name, specialty, address and practice,
// inserting or updating.
func (s *Store) PutDoctor(ctx context.Context, d booker.Doctor) error {
	_, err := s.pool.Exec(ctx, `
        INSERT INTO doctor (id, name, specialty, address, practice_id) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, specialty = EXCLUDED.specialty,
            address = EXCLUDED.address, practice_id = EXCLUDED.practice_id, updated_at = now()`,
		d.ID, d.Name, d.Specialty, d.Address, max(d.PracticeID, 1))
	if err != nil {
		return fmt.Errorf("postgres: put doctor: %w", err)
	}
	return nil
}
