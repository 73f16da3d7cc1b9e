package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// ErrDoctorNotFound is the answer of Doctor for an id without a row; such a
// doctor may still have slots, only its name is unknown.
var ErrDoctorNotFound = errors.New("postgres: doctor not found")

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

// Doctor reads one doctor; ErrDoctorNotFound when it has no row.
func (s *Store) Doctor(ctx context.Context, id int64) (booker.Doctor, error) {
	var d booker.Doctor
	err := s.pool.QueryRow(ctx, `SELECT id, name, specialty FROM doctor WHERE id = $1`, id).Scan(&d.ID, &d.Name, &d.Specialty)
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Doctor{}, ErrDoctorNotFound
	}
	if err != nil {
		return booker.Doctor{}, fmt.Errorf("postgres: read doctor: %w", err)
	}
	return d, nil
}

// Doctors returns up to limit doctors by id.
func (s *Store) Doctors(ctx context.Context, limit int) ([]booker.Doctor, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, specialty FROM doctor ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: doctors: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booker.Doctor, error) {
		var d booker.Doctor
		err := row.Scan(&d.ID, &d.Name, &d.Specialty)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: doctors: %w", err)
	}
	return list, nil
}
