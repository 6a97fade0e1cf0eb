package calibrate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/ingest"
)

// failureLineExample is what a FailureMetrics line looks like, for errors.
const failureLineExample = "FailureMetrics{experimentId=60, jobId='profile_10000', avgThr=57116.57, avgLat=561.63, recTime=122.0}"

// profilePrefix marks Khaos's profiling copies; the rest of the jobId is the
// copy's checkpoint interval in ms.
const profilePrefix = "profile_"

// ParseKhaosFailures reads the Khaos FailureMetrics log (data/ysb/failures.txt of dos-group/khaos).
// Lines of the profiling copies (jobId 'profile_<CI ms>') become points with that CI; the lines of the
// Khaos-managed job (any other jobId, e.g. 'advertising'), whose CI changed during the day, are returned
// as skipped count, not as points. Blank lines are ignored.
func ParseKhaosFailures(name string, r io.Reader) (pts []Point, skipped int, err error) {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		p, ok, err := parseFailureLine(text)
		if err == nil && ok {
			err = khaosNames(p.Check())
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if !ok {
			skipped++
			continue
		}
		p.Line = line
		pts = append(pts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if len(pts) == 0 {
		return nil, 0, fmt.Errorf("%s: no lines of profiling copies (jobId 'profile_<CI ms>'); %d other lines skipped", name, skipped)
	}
	return pts, skipped, nil
}

// parseFailureLine reads one FailureMetrics line; ok is false for a job
// that is not a profiling copy (its values are still checked for syntax).
func parseFailureLine(text string) (p Point, ok bool, err error) {
	const open = "FailureMetrics{"
	end := strings.IndexByte(text, '}')
	if !strings.HasPrefix(text, open) || end < 0 {
		return p, false, fmt.Errorf("expected a line like %s, got %q", failureLineExample, short(text))
	}
	if err := checkTrailer(strings.TrimSpace(text[end+1:])); err != nil {
		return p, false, err
	}
	kv, err := keyValues(text[len(open):end])
	if err != nil {
		return p, false, err
	}
	nums := map[string]float64{}
	for _, k := range []string{"avgThr", "avgLat", "recTime"} {
		s, found := kv[k]
		if !found {
			return p, false, fmt.Errorf("missing %s= (a line needs jobId, avgThr, avgLat and recTime, like %s)", k, failureLineExample)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return p, false, fmt.Errorf("%s: %q is not a number", k, s)
		}
		nums[k] = v
	}
	job, found := kv["jobId"]
	if !found {
		return p, false, fmt.Errorf("missing jobId= (a line needs jobId, avgThr, avgLat and recTime, like %s)", failureLineExample)
	}
	p = Point{Label: job, Throughput: nums["avgThr"], LatencyMs: nums["avgLat"], RecoveryS: nums["recTime"], FaultAtS: math.NaN()}
	ms, isProfile := strings.CutPrefix(job, profilePrefix)
	if !isProfile {
		return p, false, nil
	}
	ci, err := strconv.ParseFloat(ms, 64)
	if err != nil || !(ci > 0) || math.IsInf(ci, 0) {
		return p, false, fmt.Errorf("jobId %q: a profiling copy is named profile_<checkpoint interval in ms>, e.g. profile_10000", job)
	}
	p.CheckpointIntervalS = ci / 1000
	return p, true, nil
}

// khaosNames renames the table columns in a value error to the log's keys.
func khaosNames(err error) error {
	var ve *ingest.ValueError
	if !errors.As(err, &ve) {
		return err
	}
	key := map[string]string{"throughput": "avgThr", "recovery_s": "recTime", "latency_ms": "avgLat", "checkpoint_interval_s": "jobId"}[ve.Column]
	return &ingest.ValueError{Column: key, Msg: ve.Msg}
}

// keyValues splits `k=v, k='v',k=v`: spaces after commas are optional and
// single quotes around a value are dropped.
func keyValues(body string) (map[string]string, error) {
	kv := map[string]string{}
	for _, part := range strings.Split(body, ",") {
		k, v, found := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found || k == "" {
			return nil, fmt.Errorf("%q is not key=value (pairs are separated by commas, like %s)", strings.TrimSpace(part), failureLineExample)
		}
		if strings.Contains(v, "=") {
			return nil, fmt.Errorf("%q holds two key=value pairs (a comma missing?)", strings.TrimSpace(part))
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("%s appears twice", k)
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = v[1 : len(v)-1]
		}
		kv[k] = v
	}
	return kv, nil
}

// checkTrailer accepts nothing or Khaos's ` (actual: <prediction>)` after
// the closing brace.
func checkTrailer(rest string) error {
	if rest == "" {
		return nil
	}
	inner, ok := strings.CutPrefix(rest, "(actual:")
	if inner, ok2 := strings.CutSuffix(inner, ")"); ok && ok2 {
		if _, err := strconv.ParseFloat(strings.TrimSpace(inner), 64); err == nil {
			return nil
		}
	}
	return fmt.Errorf("unexpected %q after }; only ` (actual: <number>)` may follow", short(rest))
}

// short truncates text for a message.
func short(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
