package postgres

import "github.com/jackc/pgx/v5"

// eachRow scans every row of a batch's next result into dest and calls each
// after each row. It closes the rows before it returns, so that the batch's
// following result can be read.
func eachRow(res pgx.BatchResults, dest []any, each func()) error {
	rows, err := res.Query()
	if err != nil {
		return err
	}
	_, err = pgx.ForEachRow(rows, dest, func() error { each(); return nil })
	return err
}
