module termin/loadtest

go 1.26
