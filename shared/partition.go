package shared

import (
	"hash/fnv"
	"strconv"
)

// Partitions is the fixed number of partitions the doctors are spread
// over. A doctor's commands travel on its partition's subjects and are
// decided by the one booker that holds the partition, so bookers share the
// doctors instead of competing for every command; the bookers share the
// partitions among themselves (booker/jetstream). The number bounds how
// many bookers can take a share, and each partition costs the gateway an
// envelope of its own, so it is small. It is part of the wire contract:
// changing it moves doctors between partitions, which a running system must
// not see (drain the stream first).
const Partitions = 4

// Partition is the partition of a doctor: FNV-1a of its decimal id, modulo
// Partitions, the hash NATS subject mapping's partition() function takes
// of a token, so that an operator can compute it with the server's tools.
func Partition(doctorID int64) int {
	h := fnv.New32a()
	var buf [20]byte
	h.Write(strconv.AppendInt(buf[:0], doctorID, 10))
	return int(h.Sum32() % Partitions)
}

// PartitionSubject is the subject prefix of one partition's commands below
// prefix: "<prefix>.<partition>".
func PartitionSubject(prefix string, partition int) string {
	return prefix + "." + strconv.Itoa(partition)
}

// PartitionConsumer is the durable consumer of one partition's commands.
func PartitionConsumer(partition int) string {
	return ConsumerName + "-" + strconv.Itoa(partition)
}
