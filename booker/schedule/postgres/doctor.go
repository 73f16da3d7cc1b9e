package postgres

import (
	"context"
	"fmt"

	"termin/booker"
	"termin/shared"
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

// PutPractice stores a practice's name and address, inserting or updating;
// the search shows them beside the practice's doctors.
func (s *Store) PutPractice(ctx context.Context, p shared.Practice) error {
	_, err := s.pool.Exec(ctx, `
        INSERT INTO practice (id, name, street, postcode, city) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, street = EXCLUDED.street,
            postcode = EXCLUDED.postcode, city = EXCLUDED.city, updated_at = now()`,
		p.ID, p.Name, p.Street, p.Postcode, p.City)
	if err != nil {
		return fmt.Errorf("postgres: put practice: %w", err)
	}
	return nil
}
