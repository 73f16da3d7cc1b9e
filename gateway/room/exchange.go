package room

import (
	"time"

	"termin/gateway"
)

// Exchange is the cross-gateway side of a room: the loads of the other
// gateways on each line, from which this gateway's share of a slot's
// admissions is apportioned (peers.go), and each patient's one place per
// opening, claimed in the gateways' shared record and told to the others in
// notes (claims.go, places.go). It is a collaborator of its Room, not a
// room of its own: it works under the room's lock, on the room's lines and
// tickets, and gateway/jetstream carries what it tells and hears.
type Exchange struct {
	r *Room
	// name and peers: this gateway among the others, and their loads.
	name    string
	peers   map[string]*peer
	dirty   []*line                    // lines whose demand changed since the loads were last told
	newPeer bool                       // a gateway appeared: tell it every load
	active  map[int64]gateway.LineLoad // loads of the lines holding requests, as of the last Loads
	// remote holds the places other gateways told of; following, the
	// tickets here that wait for one of them; notes, what to tell them.
	remote    map[openingID]remotePlace
	following map[openingID][]*ticket
	notes     []gateway.PlaceNote
	// places, when set, decides across gateways which key holds a place.
	places      gateway.PlaceRecord
	placesSince time.Time
}

func newExchange(r *Room) *Exchange {
	return &Exchange{r: r, peers: make(map[string]*peer), active: make(map[int64]gateway.LineLoad),
		remote: make(map[openingID]remotePlace), following: make(map[openingID][]*ticket)}
}
