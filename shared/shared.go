// Package shared is the wire contract between the gateway and the booker: the
// messages that travel over NATS and nothing else, so that both binaries can
// change their insides independently.
package shared
