package flink

// FromCheckpoint says a change of parallelism restarts the job from its
// latest checkpoint (job.rescale.mode checkpoint, the adaptive
// scheduler's way) rather than by stop-with-savepoint and resubmission; the
// live driver asks the scenario's config this without importing the model.
func (c RescaleConfig) FromCheckpoint() bool { return c.Mode == RescaleCheckpoint }

// Keyed says the operator's input is hash-partitioned (keyBy).
func (o Operator) Keyed() bool { return o.Partitioning == Hash }
