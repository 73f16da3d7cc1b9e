package jetstream

// DecodeCommand is the worker's command decoder, for the black-box tests.
var DecodeCommand = decodeCommand
