package jetstream

// Decoders of untrusted bus messages, for the black-box tests.
var (
	DecodeStates   = decodeStates
	DecodeAttempts = decodeAttempts
	EncodeLines    = encodeLines
	DecodeLines    = decodeLines
	ValidNotes     = validNotes
)
