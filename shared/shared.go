// Package shared is the wire contract between the gateway and the booker: the
// messages that travel over NATS and the codes their outcomes are named by,
// and nothing else, so that both binaries can change their insides
// independently.
package shared

import (
	"errors"
	"strconv"
)

// Version is the version of the messages below; a booker refuses (terminates)
// a message of a version it does not know instead of guessing at it.
const Version = 1

// VersionHolds is the version of a command that uses holds, confirmations or
// longer visits. A plain booking or cancellation stays at Version, so that
// bookers of either kind decide it during a rolling update, while a booker
// that predates holds terminates a hold rather than booking it as a plain one.
const VersionHolds = 2

// VersionAlternatives is the version of a booking Command that names
// alternatives (SlotIDs). Other commands keep their lower version, so that
// they stay readable by every booker; a booker that does not know this
// version terminates such a command rather than book its first slot alone.
const VersionAlternatives = 3

// MaxAlternatives bounds the slots one booking may name.
const MaxAlternatives = 20

// Code names an outcome. The error codes are the problem codes of the HTTP API.
type Code string

// Outcomes of a decision, and the errors of the HTTP API.
const (
	Booked      Code = "BOOKED"
	Cancelled   Code = "CANCELLED"
	Rescheduled Code = "RESCHEDULED"

	CodeInvalidRequest        Code = "INVALID_REQUEST"
	CodePayloadTooLarge       Code = "PAYLOAD_TOO_LARGE"
	CodeMissingIdempotencyKey Code = "MISSING_IDEMPOTENCY_KEY"
	CodeInvalidIdempotencyKey Code = "INVALID_IDEMPOTENCY_KEY"
	CodeSlotNotFound          Code = "SLOT_NOT_FOUND"
	CodeAppointmentNotFound   Code = "APPOINTMENT_NOT_FOUND"
	CodeDoctorNotFound        Code = "DOCTOR_NOT_FOUND"
	CodeSlotFull              Code = "SLOT_FULL"
	CodeAlreadyBooked         Code = "ALREADY_BOOKED"
	CodeTooManyAppointments   Code = "TOO_MANY_APPOINTMENTS"
	CodeSlotClosed            Code = "SLOT_CLOSED"
	CodeIdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"
	CodeRateLimited           Code = "RATE_LIMITED"
	CodeUnavailable           Code = "UNAVAILABLE"
	CodeUnauthorized          Code = "UNAUTHORIZED"
	CodeForbidden             Code = "FORBIDDEN"
	CodeNotFound              Code = "NOT_FOUND"
	CodeMethodNotAllowed      Code = "METHOD_NOT_ALLOWED"
	CodeInternal              Code = "INTERNAL"

	// CodeAppointmentPast refuses to cancel or move an appointment that has
	// started; CodeCancelCutoffPassed one that starts within the practice's
	// cancellation cutoff; CodeAppointmentCancelled one that is cancelled.
	CodeAppointmentPast      Code = "APPOINTMENT_PAST"
	CodeCancelCutoffPassed   Code = "CANCEL_CUTOFF_PASSED"
	CodeAppointmentCancelled Code = "APPOINTMENT_CANCELLED"

	CodeHoldExpired            Code = "HOLD_EXPIRED"
	CodeOverlappingAppointment Code = "OVERLAPPING_APPOINTMENT"
)

// Error is an error with a code, so that a decision made in the booker keeps
// its meaning on the wire and in the gateway's answer.
type Error struct {
	Code Code
	Msg  string
}

// NewError makes a sentinel error with a code.
func NewError(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }

// Error is the message; the code travels beside it, not inside it.
func (e *Error) Error() string { return e.Msg }

// CodeOf returns the code of the first *Error in err's chain, or CodeInternal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Kind says what a Command asks for.
type Kind string

// The kinds of command. Cancellations, confirmations and reschedules go
// through the same queue as bookings so that every write to a slot row is
// decided in the booker. A reschedule travels on the new slot's doctor
// subject and is routed by the new slot, so it is decided in order with that
// slot's bookings.
const (
	KindBook       Kind = "book"
	KindCancel     Kind = "cancel"
	KindConfirm    Kind = "confirm"
	KindReschedule Kind = "reschedule"
)

// Command is a booking or cancellation request waiting in the booking stream.
type Command struct {
	V              int    `json:"v"`
	Kind           Kind   `json:"kind"`
	RequestID      string `json:"requestId,omitempty"`
	SlotID         int64  `json:"slotId,omitempty"`
	PatientID      int64  `json:"patientId,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	AppointmentID  int64  `json:"appointmentId,omitempty"`
	// Hold and Minutes (VersionHolds) ask for a hold and a longer visit.
	Hold    bool `json:"hold,omitempty"`
	Minutes int  `json:"minutes,omitempty"`

	// SlotIDs are a booking's slots in order of preference (SlotID first),
	// all of one doctor; set only with VersionAlternatives. The booking takes
	// the first of them with a free place.
	SlotIDs []int64 `json:"slotIds,omitempty"`
	// TraceID is the gateway's request id (X-Request-Id), so that the booker's
	// log lines about this command can be found from what a client reports.
	// Optional: an older gateway leaves it empty.
	TraceID string `json:"traceId,omitempty"`
	// TraceParent is the W3C trace context of the command's publish, when
	// the gateway traces it: inside an envelope the message's headers cannot
	// carry it, as the envelope's commands belong to different traces. A
	// malformed or oversized value is ignored, never refused.
	TraceParent string `json:"traceparent,omitempty"`
}

// Appointment is an appointment as it travels in a Decision. ExpiresAt is
// a hold's end; EndAt the end of a longer visit, or of the new slot of a
// reschedule, which also carries DoctorID and StartAt (RFC 3339), so that
// the gateway can answer with them without a read; empty otherwise.
type Appointment struct {
	ID        int64  `json:"id"`
	SlotID    int64  `json:"slotId"`
	PatientID int64  `json:"patientId"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt"`
	DoctorID  int64  `json:"doctorId,omitempty"`
	StartAt   string `json:"startAt,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
	EndAt     string `json:"endAt,omitempty"`
}

// CommandVersion is the version a command must carry: VersionHolds when it
// uses anything a booker before holds would misread.
func CommandVersion(kind Kind, hold bool, minutes int) int {
	if kind == KindConfirm || hold || minutes != 0 {
		return VersionHolds
	}
	return Version
}

// ConfirmMsgID is the de-duplication id of a confirmation.
func ConfirmMsgID(appointmentID int64) string {
	return "confirm." + strconv.FormatInt(appointmentID, 10)
}

// Decision is the booker's answer to a Command: an outcome code, and the
// appointment when there is one. Replay is true when the key had been decided
// before.
type Decision struct {
	V      int    `json:"v"`
	Code   Code   `json:"code"`
	Detail string `json:"detail,omitempty"`
	Replay bool   `json:"replay,omitempty"`
	SlotID int64  `json:"slotId,omitempty"`
	// Hold and Minutes repeat the booking's, so that a key reused with
	// another body is told apart when answered from the record.
	Hold        bool         `json:"hold,omitempty"`
	Minutes     int          `json:"minutes,omitempty"`
	Appointment *Appointment `json:"appointment,omitempty"`
	// Left is the places the slot had left right after a new booking.
	Left int `json:"left,omitempty"`
	// RequestID is the reply token of the command decided. A gateway that
	// finds a key's decision on record tells by it whether the command
	// decided was its own (sent without a PubAck, then found a duplicate
	// when published again) or another gateway's, which makes its answer a
	// replay.
	RequestID string `json:"requestId,omitempty"`
}

// ReplyHeader carries the subject the gateway waits on for the Decision; the
// NATS reply subject of a JetStream publish is taken by the PubAck.
const ReplyHeader = "Termin-Reply-To"

// RepliesHeader, set to RepliesBatched on a command, says that its gateway
// also takes its decision inside a batch: one message on the inbox's
// RepliesToken subject (the reply subject's last token replaced) carrying
// the decisions of every command of a booker's batch that waits at that
// gateway, as a JSON array of Reply. One message per batch instead of one
// per command spares the bus and both ends a message per booking. A command
// without the header (a gateway that predates it) is answered on its own.
const (
	RepliesHeader  = "Termin-Replies"
	RepliesBatched = "batched"
	RepliesToken   = "replies"
)

// Reply is one decision in a batch of replies: Token is the last token of
// the command's reply subject.
type Reply struct {
	Token    string   `json:"token"`
	Decision Decision `json:"decision"`
}

// Subject is the per-doctor subject a command is published on, within its
// partition: "<prefix>.<partition>.<doctorId>".
func Subject(prefix string, doctorID int64) string {
	return PartitionSubject(prefix, Partition(doctorID)) + "." + strconv.FormatInt(doctorID, 10)
}

// BookingMsgID is the JetStream de-duplication id of a booking: the patient and
// their key, so that a repeat published by any gateway is dropped by the stream.
func BookingMsgID(patientID int64, key string) string {
	return "book." + strconv.FormatInt(patientID, 10) + "." + key
}

// RescheduleMsgID is the de-duplication id of a reschedule: the patient and
// their key, apart from bookings' ids.
func RescheduleMsgID(patientID int64, key string) string {
	return "reschedule." + strconv.FormatInt(patientID, 10) + "." + key
}

// RescheduleDecisionKey is where the decision of a reschedule key is kept in
// the decisions bucket. The "r." cannot clash with a booking's key, which
// holds no dot.
func RescheduleDecisionKey(patientID int64, key string) string {
	return strconv.FormatInt(patientID, 10) + ".r." + key
}

// CancelMsgID is the de-duplication id of a cancellation.
func CancelMsgID(appointmentID int64) string {
	return "cancel." + strconv.FormatInt(appointmentID, 10)
}

// DecisionKey is where the decision of a booking key is kept in the decisions
// KV bucket, so that any gateway can answer a repeat with the one decision.
func DecisionKey(patientID int64, key string) string {
	return strconv.FormatInt(patientID, 10) + "." + key
}

// Names of the JetStream assets both binaries use. The booker creates them at
// start; the gateway binds to them.
const (
	StreamName = "BOOKINGS"
	// ConsumerName starts the name of each partition's consumer
	// (PartitionConsumer).
	ConsumerName         = "booker"
	DecisionsBucket      = "booking-decisions"
	DefaultSubjectPrefix = "booking"
)

// SlotStateSubject is where the booker announces a slot's changes, one subject
// per doctor below it. Announcements go over core NATS: a lost one costs a few
// seconds of staleness, never a wrong booking, because gateways' marks expire
// and the booker decides every booking anyway.
const SlotStateSubject = "slot.state"

// SlotStatesToken ends the subject of an announcement that carries a JSON
// array of SlotState: all the slots one batch changed, in one message.
const SlotStatesToken = "batch"

// SlotState announces the places left in a slot after a decision. A full slot
// (Left == 0) carries its holders, so that a gateway refusing it locally still
// lets a holder's repeat reach its own answer. DoctorID and StartAt are zero
// when the announcing booker did not learn them (a refusal).
type SlotState struct {
	SlotID   int64   `json:"slotId"`
	DoctorID int64   `json:"doctorId,omitempty"`
	StartAt  string  `json:"startAt,omitempty"`
	Left     int     `json:"left"`
	Holders  []int64 `json:"holders,omitempty"`
}
