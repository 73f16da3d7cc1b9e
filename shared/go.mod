module termin/shared

go 1.26
