package shared

import (
	"fmt"
	"regexp"
	"strings"
)

// Namespace keeps one deployment's NATS subjects, streams and buckets apart
// from another's on the same NATS server (NATS_NAMESPACE): two practices'
// systems, a staging copy next to production, or test runs sharing one
// server (TEST_NATS_URL). Gateway and booker of one system must use the same
// namespace. The empty namespace is the names as they are.
type Namespace string

// namespaceSyntax keeps a namespace usable in every NATS name: a bucket name
// allows only these characters, and a subject token must not hold '.', '*',
// '>' or spaces.
var namespaceSyntax = regexp.MustCompile(`^[A-Za-z0-9_-]{0,32}$`)

// Valid tells why a namespace cannot be used in NATS names, if it cannot.
func (n Namespace) Valid() error {
	if !namespaceSyntax.MatchString(string(n)) {
		return fmt.Errorf("namespace %q: want at most 32 of A-Z a-z 0-9 _ -", string(n))
	}
	return nil
}

// Name is a stream's or a bucket's name in the namespace.
func (n Namespace) Name(base string) string {
	if n == "" {
		return base
	}
	return string(n) + "_" + base
}

// Subject is a subject (or subject prefix) in the namespace.
func (n Namespace) Subject(base string) string {
	if n == "" {
		return base
	}
	return string(n) + "." + base
}

// Local is a subject heard on the wire without the namespace, as the code
// names it.
func (n Namespace) Local(subject string) string {
	if n == "" {
		return subject
	}
	return strings.TrimPrefix(subject, string(n)+".")
}

// Owns reports whether a stream belongs to the namespace, a bucket's stream
// ("KV_" + bucket) included; removing a namespace's streams removes all it
// keeps on the server.
func (n Namespace) Owns(stream string) bool {
	if n == "" {
		return false // the default namespace cannot be told from any other name
	}
	return strings.HasPrefix(strings.TrimPrefix(stream, "KV_"), string(n)+"_")
}
