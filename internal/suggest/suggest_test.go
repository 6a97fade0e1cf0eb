package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	figures := []string{"throughput_mean", "lag_max", "latency_mean_ms", "latency_p50_ms", "latency_p99_ms",
		"recoveries", "recovery_mean_s", "recovery_median_s", "recovery_max_s", "job.checkpoint.interval", "workload.rate"}
	cases := []struct {
		name string
		want []string
	}{
		{"recovery", []string{"recovery_mean_s", "recovery_median_s", "recovery_max_s"}}, // prefix, in known's order
		{"recovery_mean", []string{"recovery_mean_s"}},
		{"recovery_mean_sec", []string{"recovery_mean_s"}}, // a known name begins it
		{"Recovery_Mean_S", []string{"recovery_mean_s"}},   // case
		{"p99", []string{"latency_p99_ms"}},                // contained
		{"rate", []string{"workload.rate"}},
		{"interval", []string{"job.checkpoint.interval"}},
		{"recovry_max_s", []string{"recovery_max_s"}}, // typo
		{"lag_mxa", []string{"lag_max"}},              // swapped letters
		{"workers", nil},
		{"", nil},
	}
	for _, c := range cases {
		if got := Closest(c.name, figures, 3); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "did you mean a?"},
		{[]string{"a", "b"}, "did you mean a or b?"},
		{[]string{"a", "b", "c"}, "did you mean a, b or c?"},
	} {
		if got := DidYouMean(c.names); got != c.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestTypo: the matcher of unknown YAML keys (decode.UnknownFieldError).
func TestTypo(t *testing.T) {
	known := []string{"at", "before_checkpoint", "faults", "interval", "mode", "parallelism", "timeout", "to"}
	cases := []struct{ name, want string }{
		{"intreval", "interval"},  // letters swapped
		{"intervall", "interval"}, // one too many
		{"fautls", "faults"},      // swapped
		{"paralelism", "parallelism"},
		{"Interval", "interval"}, // case
		{"befor_checkpont", "before_checkpoint"},
		{"mod", "mode"},
		{"tiemout", "timeout"},
		{"it", ""},       // two letters: one edit at most, and "it" → "at"/"to" is a guess
		{"workers", ""},  // nothing close
		{"parallel", ""}, // 3 edits
		{"", ""},
	}
	for _, c := range cases {
		if got := Typo(c.name, known); got != c.want {
			t.Errorf("Typo(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
