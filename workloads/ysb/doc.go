// Package ysb generates the Yahoo Streaming Benchmark (YSB) ad-event stream,
// following the generator data/src/setup/core.clj of
// yahoo/streaming-benchmarks (commit d1aaf6bb, unchanged since 2015).
//
// Campaigns holds the 100 campaigns × 10 ads setup that core.clj writes to
// Redis (-n); AppendMapping writes the ad → campaign table the job joins
// against. Generator produces the run-mode (-r -t) stream one second at a
// time: rate events per second at strictly periodic scheduled times, with
// event_time equal to the scheduled time (not the send time), user_id and
// page_id uniform over 100 pre-made UUIDs each, ad_id uniform over the 1000
// ads (so campaigns are uniform), ad_type uniform over 5 values and
// event_type uniform over {view, click, purchase} (P(view) = 1/3).
//
// Two encodings are offered, one JSON object per line ('\n'-terminated):
//
//	Full    — byte-for-byte the core.clj string concatenation: seven string
//	          fields, a space after every ':' and ',', 248–264 B per event
//	          (excluding '\n') for 13-digit millisecond timestamps:
//	          {"user_id": "…", "page_id": "…", "ad_id": "…", "ad_type": "banner",
//	           "event_type": "view", "event_time": "1630930000000", "ip_address": "1.2.3.4"}
//	Compact — {"ts":1630930000000,"id":"<ad_id>","et":"view"} with
//	          ts = event time in epoch milliseconds (JSON number),
//	          id = ad id (UUID string, a key of the mapping),
//	          et = event type (view, click or purchase).
//	          It carries exactly what the job uses after its projection
//	          (ad_id, event_time) plus the field its filter reads.
//
// Output is byte-deterministic for a seed: all randomness comes from
// math/rand/v2's PCG, and bounded draws use our own Lemire reduction rather
// than rand.Rand methods, so the bytes do not depend on how a Go release
// implements IntN. The same seed yields the same logical events in both
// formats (Compact consumes the same draws and discards user, page, ad type).
//
// The generator appends into a caller-supplied buffer, uses precomputed
// UUID strings and byte fragments, and does not allocate per event; on one
// core it produces several million events per second in either format
// (BenchmarkAppendSecond).
package ysb
