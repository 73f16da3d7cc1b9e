package system

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"termin/booker/jetstream"
	"termin/booker/jetstream/members"
	gwjetstream "termin/gateway/jetstream"
	"termin/shared"
)

// The NATS users of the system, one per service. deploy/nats/nats.conf grants
// the same permissions (a test compares them).
const (
	GatewayUser = "gateway"
	BookerUser  = "booker"
)

// Permissions are one service's publish and subscribe allowances.
type Permissions struct {
	Publish, Subscribe []string
	// Responses lets the service answer requests made to it (allow_responses).
	Responses bool
}

// ServicePermissions is what each service may publish and subscribe to, in
// namespace ns with booking subjects under prefix. Whatever is not listed is
// refused by the server: the gateway cannot announce slot states, write
// decisions, or read the commands of others; the booker cannot queue
// commands. Everything the gateway learns on the bus is still checked, since
// another gateway may be compromised.
func ServicePermissions(ns shared.Namespace, prefix string) map[string]Permissions {
	bucket := ns.Name(shared.DecisionsBucket)
	kv := "KV_" + bucket
	places := ns.Name(gwjetstream.PlacesBucket)
	placesKV := "KV_" + places
	return map[string]Permissions{
		GatewayUser: {
			Publish: []string{
				ns.Subject(prefix) + ".>", ns.Subject("gateway.attempts"), ns.Subject("gateway.lines"), ns.Subject("gateway.places"), ns.Subject(shared.ScheduleSubject),
				ns.Subject(shared.WaitlistSubject), ns.Subject(shared.DoctorSubject),
				ns.Subject(shared.PatientSubject), ns.Subject(shared.PracticeSubject), ns.Subject(shared.AccessSubject),
				"$JS.API.INFO", "$JS.API.STREAM.INFO." + kv,
				"$JS.API.DIRECT.GET." + kv, "$JS.API.DIRECT.GET." + kv + ".>", "$JS.API.STREAM.MSG.GET." + kv,
				"$JS.API.CONSUMER.CREATE." + kv, "$JS.API.CONSUMER.CREATE." + kv + ".>",
				"$JS.API.CONSUMER.DELETE." + kv + ".>", "$JS.API.CONSUMER.INFO." + kv + ".>", "$JS.FC." + kv + ".>",
				"$JS.API.STREAM.CREATE." + placesKV, "$JS.API.STREAM.INFO." + placesKV,
				"$JS.API.DIRECT.GET." + placesKV + ".>", "$KV." + places + ".>",
			},
			Subscribe: []string{"_INBOX.>", ns.Subject(shared.SlotStateSubject) + ".>", ns.Subject("gateway.attempts"), ns.Subject("gateway.lines"), ns.Subject("gateway.places")},
		},
		BookerUser: {
			Publish: []string{
				"$JS.API.>", "$JS.ACK.>", "$JS.FC.>", "$KV." + bucket + ".>", "_INBOX.>",
				ns.Subject(shared.SlotStateSubject) + ".>", ns.Subject("appointment.>"), ns.Subject("notify.dead.>"),
				ns.Subject(jetstream.DeadSubject) + ".>", ns.Subject(members.Subject),
			},
			Subscribe: []string{"_INBOX.>", ns.Subject(shared.ScheduleSubject), ns.Subject(shared.WaitlistSubject), ns.Subject(shared.DoctorSubject),
				ns.Subject(shared.PatientSubject), ns.Subject(shared.PracticeSubject), ns.Subject(shared.AccessSubject),
				ns.Subject(members.Subject)},
			Responses: true,
		},
	}
}

// servicePasswords makes a random password for each service of
// ServicePermissions.
func servicePasswords(ns shared.Namespace, prefix string) (map[string]Permissions, map[string]string, error) {
	perms := ServicePermissions(ns, prefix)
	passwords := map[string]string{}
	for name := range perms {
		pw, err := randomToken(24)
		if err != nil {
			return nil, nil, err
		}
		passwords[name] = pw
	}
	return perms, passwords, nil
}

// natsUsers makes a random password per service and the server's users.
func natsUsers(ns shared.Namespace, prefix string) ([]*server.User, map[string]string, error) {
	all, passwords, err := servicePasswords(ns, prefix)
	if err != nil {
		return nil, nil, err
	}
	var users []*server.User
	for name, p := range all {
		pw := passwords[name]
		perms := &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: p.Publish},
			Subscribe: &server.SubjectPermission{Allow: p.Subscribe},
		}
		if p.Responses {
			perms.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
		}
		users = append(users, &server.User{Username: name, Password: pw, Permissions: perms})
	}
	return users, passwords, nil
}

// randomToken is n random bytes, URL-safe base64: usable in a NATS URL.
func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// WithUser puts user and password into every URL of a comma-separated NATS
// URL list.
func WithUser(urls, user, password string) string {
	parts := strings.Split(urls, ",")
	for i, raw := range parts {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" {
			continue
		}
		u.User = url.UserPassword(user, password)
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
