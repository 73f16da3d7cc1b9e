package postgres

import (
	"context"
	"fmt"

	"termin/booker"
)

// PutDoctor stores the doctor's name and specialty, inserting or updating.
func (s *Store) PutDoctor(ctx context.Context, d booker.Doctor) error {
	_, err := s.pool.Exec(ctx, `
        INSERT INTO doctor (id, name, specialty) VALUES ($1, $2, $3)
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, specialty = EXCLUDED.specialty, updated_at = now()`,
		d.ID, d.Name, d.Specialty)
	if err != nil {
		return fmt.Errorf("postgres: put doctor: %w", err)
	}
	return nil
}
