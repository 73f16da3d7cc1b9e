package oidc

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// maxRoles bounds the roles read from a token; a provider lists a person's
// few roles, and the gateway knows four.
const maxRoles = 64

// roles reads the claim at path, a dotted path through objects
// (realm_access.roles): a list of strings, or one string. Anything else,
// or nothing there, is no role.
func roles(claims map[string]any, path string) []string {
	var at any = claims
	for _, name := range strings.Split(path, ".") {
		obj, ok := at.(map[string]any)
		if !ok {
			return nil
		}
		at = obj[name]
	}
	switch v := at.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, min(len(v), maxRoles))
		for _, r := range v[:min(len(v), maxRoles)] {
			if s, ok := r.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// errBadID refuses a scope claim that is present but no positive integer.
var errBadID = errors.New("must be a positive integer, as a JSON number or a decimal string")

// positiveID reads a doctorId or practiceId claim: absent is 0; a JSON
// number or a decimal string (a provider's user attribute is often a
// string) must be a positive integer.
func positiveID(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, errBadID
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, errBadID
	}
	return id, nil
}
