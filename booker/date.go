package booker

import "termin/shared"

// Date is a calendar day in the clinic's time zone. It is the wire
// contract's date, so that a day the gateway reads from a request and a day
// the booker generates slots for are one type.
type Date = shared.Date

// ParseDate reads a YYYY-MM-DD date and refuses days that do not exist.
func ParseDate(s string) (Date, error) { return shared.ParseDate(s) }
