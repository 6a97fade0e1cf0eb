package app

import (
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/sim"
)

// A rate on the command line is records per second: a bare number, or the
// scenario files' syntax with its optional /s.
func TestParseRateFlag(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		err   string // a part of the error; "" for none
	}{
		{"1000", 1000, ""},
		{"1000/s", 1000, ""},
		{" 1000 ", 1000, ""},
		{"2k/s", 2000, ""},
		{"2k", 2000, ""},
		{"1.5M/s", 1.5e6, ""},
		{"0.5", 0.5, ""},
		{"1e3", 1000, ""},
		{"1e9", 1e9, ""},
		{"0", 0, `--rate: the rate must be positive, got "0"`},
		{"0/s", 0, `--rate: the rate must be positive, got "0/s"`},
		{"-5", 0, `--rate: the rate must be positive, got "-5"`},
		{"-5/s", 0, `--rate: the rate must be positive, got "-5/s"`},
		{"2e9", 0, `--rate: the rate must be at most 1e+09 records/s, got "2e9"`},
		{"abc", 0, `--rate: invalid rate "abc"; give records per second, e.g. 50000, 50000/s or 50k/s`},
		{"", 0, `--rate: invalid rate ""`},
		{"3x/s", 0, `--rate: invalid rate "3x/s"`},
		{"1000/m", 0, `--rate: invalid rate "1000/m"`},
		{"NaN", 0, `--rate: invalid rate "NaN"`},
		{"Inf", 0, `--rate: invalid rate "Inf"`},
	}
	for _, tt := range tests {
		got, err := parseRateFlag("rate", tt.value)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseRateFlag(%q) = %v, %v; want the error %q", tt.value, float64(got), err, tt.err)
			}
			continue
		}
		if err != nil || float64(got) != tt.want {
			t.Errorf("parseRateFlag(%q) = %v, %v; want %v", tt.value, float64(got), err, tt.want)
		}
	}
	// Scenario files (and --set) keep requiring the unit: see TestBadInput's
	// "rate without unit".
	if r, err := sim.ParseRate("1000"); err == nil {
		t.Errorf("sim.ParseRate(1000) = %v: a bare number is accepted in scenario files", float64(r))
	}
}

// The rate flags of the workload commands take bare numbers; their
// mistakes are input errors (exit 2) naming the flag.
func TestRateFlags(t *testing.T) {
	tests := []struct {
		args   []string
		lines  int    // of stdout, when it succeeds
		stdout string // a part of stdout
		stderr string // a part of stderr: an input error
	}{
		{args: []string{"workload", "events", "ysb", "--rate", "1000", "--duration", "2s"}, lines: 2000},
		{args: []string{"workload", "events", "ysb", "--rate", "1000/s", "--duration", "2s"}, lines: 2000},
		{args: []string{"workload", "events", "iot", "--rate", "0.2k", "--duration", "5s"}, lines: 1000},
		{args: []string{"workload", "show", "ysb-day", "--peak", "100000"}, stdout: "max 100,000"},
		{args: []string{"workload", "show", "ysb-day", "--peak", "100k/s"}, stdout: "max 100,000"},
		{args: []string{"workload", "events", "ysb", "--rate", "0"}, stderr: `--rate: the rate must be positive, got "0"`},
		{args: []string{"workload", "events", "ysb", "--rate", "-5"}, stderr: `--rate: the rate must be positive, got "-5"`},
		{args: []string{"workload", "events", "ysb", "--rate", "abc"}, stderr: `--rate: invalid rate "abc"`},
		{args: []string{"workload", "show", "ysb-day", "--peak", "0"}, stderr: `--peak: the rate must be positive, got "0"`},
		{args: []string{"workload", "show", "ysb-day", "--peak", "fast"}, stderr: `--peak: invalid rate "fast"`},
	}
	for _, tt := range tests {
		stdout, stderr, code, _ := runCLI(t, tt.args...)
		if tt.stderr != "" {
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tt.args, code, stderr)
			continue
		}
		if n := strings.Count(stdout, "\n"); tt.lines > 0 && n != tt.lines {
			t.Errorf("%v: %d lines, want %d", tt.args, n, tt.lines)
		}
		if !strings.Contains(stdout, tt.stdout) {
			t.Errorf("%v: stdout lacks %q:\n%s", tt.args, tt.stdout, stdout)
		}
	}
}

// TestCommandLineMistakes: a mistyped flag or command, anywhere in the
// command tree, is one line naming the command, the nearest name and the
// help to read, with exit 2; not urfave/cli's "Incorrect Usage" and the
// whole help, or "No help topic" with exit 3.
func TestCommandLineMistakes(t *testing.T) {
	tests := []struct {
		args []string
		want string // the first line of stderr
	}{
		{[]string{"run", "scenarios/demo.yaml", "--sed", "3"}, "streamtwin run: unknown flag --sed; did you mean --seed?"},
		{[]string{"run", "--sed", "3", "scenarios/demo.yaml"}, "streamtwin run: unknown flag --sed; did you mean --seed?"},
		{[]string{"run", "scenarios/demo.yaml", "--var", "ci10"}, "streamtwin run: unknown flag --var; did you mean --variant?"},
		{[]string{"run", "scenarios/demo.yaml", "--frobnicate"}, "streamtwin run: unknown flag --frobnicate"},
		{[]string{"scenario", "validate", "x.yaml", "--foo"}, "streamtwin scenario validate: unknown flag --foo"},
		{[]string{"results", "summarize", "runs/sweep", "--byy", "x"}, "streamtwin results summarize: unknown flag --byy; did you mean --by?"},
		{[]string{"live", "up", "--taskmanager", "2"}, "streamtwin live up: unknown flag --taskmanager; did you mean --taskmanagers?"},
		{[]string{"sweep", "s.yaml", "--worker", "2"}, "streamtwin sweep: unknown flag --worker; did you mean --workers?"},
		{[]string{"--seed", "3", "run", "x.yaml"}, "streamtwin: unknown flag --seed before the command; it is a flag of run: streamtwin run … --seed"},
		{[]string{"run", "x.yaml", "--seed"}, "streamtwin run: --seed needs a value"},
		{[]string{"run", "x.yaml", "--seed", "abc"}, `streamtwin run: invalid value "abc" for --seed: parse error`},
		{[]string{"rnu", "scenarios/demo.yaml"}, `streamtwin: unknown command "rnu"; did you mean run?`},
		{[]string{"swep"}, `streamtwin: unknown command "swep"; did you mean sweep?`},
		{[]string{"frobnicate"}, `streamtwin: unknown command "frobnicate"`},
		{[]string{"scenario", "valdate", "x.yaml"}, `streamtwin scenario: unknown command "valdate"; did you mean validate?`},
		{[]string{"results", "summarise", "runs/sweep"}, `streamtwin results: unknown command "summarise"; did you mean summarize?`},
		{[]string{"help", "rnu"}, `streamtwin: unknown command "rnu"; did you mean run?`},
	}
	for _, tt := range tests {
		app := newApp()
		var stdout, stderr strings.Builder
		app.Writer = &stdout
		code := runApp(app, append([]string{"streamtwin"}, tt.args...), &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || lines[0] != tt.want {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, code, stderr.String(), tt.want)
			continue
		}
		cmd, _, _ := strings.Cut(tt.want, ":")
		if len(lines) != 2 || lines[1] != "see "+cmd+" --help" {
			t.Errorf("%v: stderr %q does not end in see %s --help", tt.args, stderr.String(), cmd)
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: printed the help:\n%s", tt.args, stdout.String())
		}
	}
	// the commands that group others still show their help without one
	for _, args := range [][]string{nil, {"scenario"}, {"results"}, {"live"}} {
		app := newApp()
		var stdout, stderr strings.Builder
		app.Writer = &stdout
		if code := runApp(app, append([]string{"streamtwin"}, args...), &stderr); code != 0 || !strings.Contains(stdout.String(), "COMMANDS:") {
			t.Errorf("streamtwin %v: exit %d, %s%s; want the help", args, code, stdout.String(), stderr.String())
		}
	}
}
