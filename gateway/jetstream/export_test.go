package jetstream

// Decoders of untrusted bus messages, for the black-box tests.
var (
	DecodeStates   = decodeStates
	DecodeAttempts = decodeAttempts
	EncodeLines    = encodeLines
	DecodeLines    = decodeLines
	ValidNotes     = validNotes
)

// Flush waits until the server has what the queue published: a test that
// changes the stream after a publish knows which of the two came first.
func (q *Queue) Flush() error { return q.nc.Flush() }
