module termin/gateway

go 1.26
