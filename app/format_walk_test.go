package app

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The printed-numbers walk: every command on the demo, a sweep, the Khaos
// evaluation, workloads, a calibration and a check, with each line of
// stdout and stderr scanned for numbers that break the one number format of
// docs/results.md ("One number format for every printed table",
// textfmt.Number and its siblings):
//
//   - a raw float: more than 4 significant digits with decimals (570.172,
//     0.000622618);
//   - an exponent (1e-05, 5.96e-08);
//   - a negative zero (-0, -0.0, −0);
//   - an integer part of 4 digits or more without thousands separators
//     (16001, 685255635);
//   - and two the rule spells out: NaN or Inf (a table shows "–", "inf"),
//     and a sum with a negative term ("+ -0.0006", write "− 0.0006").
//
// Only whole words that are numbers are read: a number, optionally signed,
// with a unit suffix (numberUnits), or several joined by – … × · / ± (a
// range, a ratio, a model term). The exemptions, each for a reason:
//
//  1. words that are not numbers: identifiers, paths and file names
//     (r000000, runs/demo/x.parquet, p99, CI_ms), dates and times
//     (2021-08-02T00:00:00Z, 12:30), durations in scenario syntax (1h28m,
//     24h0m1s), versions and addresses (2.2.1, 127.0.0.1:9092), hex hashes;
//  2. digits with a leading zero (000012): identifiers, not quantities;
//  3. the number after "seed", "port" or "pid": identifiers, as given;
//  4. output in a file's syntax on stdout (fileOutput: scenario print's
//     YAML, CSV): parameters as given and full precision, so only
//     exponents and negative zeros are errors there (a thousands separator
//     would not even parse);
//  5. times in s in a results cat table (a column or key named …_s, or a
//     number followed by the unit s in its text, such as a fault's stored
//     reason "… checkpoint due at 2,104.384 s") keep the millisecond,
//     2,101.384, as docs/results.md says.
//
// JSON lines (workload events) are not scanned. With -short the Khaos
// evaluation runs 2 of its 8 variants.

// scanMode is how a line is read.
type scanMode int

const (
	tableOutput scanMode = iota // what people read: the whole rule
	fileOutput                  // YAML or CSV: exponents and negative zeros only
)

// numberUnits are the suffixes a printed number may carry.
var numberUnits = `%|s|ms|µs|ns|m|h|d|x|×|k|M|B|KiB|MiB|GiB|TiB`

var (
	numberWord = regexp.MustCompile(`^([+\-−]?)(\d[\d,]*)(\.\d+)?([eE][+\-]?\d+)?(?:` + numberUnits + `)?$`)
	grouped    = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)
	unitOnly   = regexp.MustCompile(`^(?:` + numberUnits + `|records|events|rec|ev)?$`)
	plusMinus  = regexp.MustCompile(`\+ [-−] ?\d`)
	joiners    = strings.NewReplacer("–", " ", "…", " ", "×", " ", "·", " ", "±", " ")
)

// identifierWords are words whose following number is an identifier.
var identifierWords = map[string]bool{"seed": true, "--seed": true, "port": true, "--port": true, "pid": true}

// numberIssues are the numbers of line that break the rule, each as
// "TOKEN: what is wrong". header is the header line of a results cat table
// (the exemption of its times in s), "" for any other output.
func numberIssues(line string, mode scanMode, header string) []string {
	var issues []string
	if mode == tableOutput && plusMinus.MatchString(line) {
		issues = append(issues, fmt.Sprintf("%q: a sum with a negative term (write − and the magnitude)", plusMinus.FindString(line)))
	}
	prev := ""
	fields := fieldsAt(line)
	for i, f := range fields {
		word := strings.TrimRight(strings.TrimLeft(f.text, `([{"'`), `)]}"',;:.!?`)
		key, value, hasKey := strings.Cut(word, "=")
		context := prev
		if hasKey {
			word, context = value, key
		}
		prev = strings.ToLower(strings.TrimRight(word, ":"))
		if identifierWords[strings.ToLower(strings.TrimRight(context, ":"))] {
			continue
		}
		if mode == tableOutput && (word == "NaN" || strings.TrimLeft(word, "+-") == "Inf") {
			issues = append(issues, word+": NaN or Inf (a table shows – and inf)")
			continue
		}
		ms := header != "" && (isSeconds(columnOf(header, line, f)) || i+1 < len(fields) && strings.TrimRight(fields[i+1].text, `)]}"',;:.!?`) == "s")
		for _, part := range strings.Fields(joiners.Replace(word)) {
			issues = append(issues, partIssues(part, mode, ms)...)
		}
	}
	return issues
}

// field is a whitespace-separated word of a line and its rune offsets.
type field struct {
	text       string
	start, end int
}

func fieldsAt(line string) []field {
	var out []field
	var cur []rune
	start := 0
	rs := []rune(line)
	for i := 0; i <= len(rs); i++ {
		if i == len(rs) || rs[i] == ' ' || rs[i] == '\t' {
			if len(cur) > 0 {
				out = append(out, field{string(cur), start, i})
				cur = cur[:0]
			}
			continue
		}
		if len(cur) == 0 {
			start = i
		}
		cur = append(cur, rs[i])
	}
	return out
}

// columnOf is the column of a results cat table that f of line is in: the
// key of a key/value table (JSON), else the first column whose header ends
// at or after f (numbers are right-aligned), else the last one starting
// before it (the text of a left-aligned last column).
func columnOf(header, line string, f field) string {
	hs := fieldsAt(header)
	if len(hs) == 2 && hs[0].text == "key" && hs[1].text == "value" {
		if fs := fieldsAt(line); len(fs) > 0 {
			return fs[0].text
		}
		return ""
	}
	for _, h := range hs {
		if h.end >= f.end {
			return h.text
		}
	}
	name := ""
	for _, h := range hs {
		if h.start <= f.start {
			name = h.text
		}
	}
	return name
}

// isSeconds: results cat shows a time in s (a column or key named …_s, not
// a rate …_per_s; recovery_times_s[3]) to the millisecond (docs/results.md).
func isSeconds(name string) bool {
	name, _, _ = strings.Cut(name, "[")
	return strings.HasSuffix(name, "_s") && !strings.HasSuffix(name, "_per_s")
}

// partIssues checks one number-like part of a word.
// ms allows 3 decimals (a time in s of results cat).
func partIssues(part string, mode scanMode, ms bool) []string {
	if strings.Contains(part, "/") {
		pieces := strings.Split(part, "/")
		for _, p := range pieces { // a path: some piece neither a number nor a unit
			if !numberWord.MatchString(p) && !unitOnly.MatchString(p) {
				return nil
			}
		}
		var issues []string
		for _, p := range pieces {
			issues = append(issues, partIssues(p, mode, ms)...)
		}
		return issues
	}
	m := numberWord.FindStringSubmatch(part)
	if strings.Contains(part, ",") && (m == nil || !grouped.MatchString(m[2])) {
		var issues []string // not thousands: a list such as 10s,30s or a CSV row
		for _, p := range strings.Split(part, ",") {
			issues = append(issues, partIssues(p, mode, ms)...)
		}
		return issues
	}
	if m == nil {
		return nil // not a number: an identifier, a date, a version…
	}
	sign, intPart, frac, exp := m[1], m[2], m[3], m[4]
	digits := strings.ReplaceAll(intPart, ",", "")
	if len(digits) > 1 && digits[0] == '0' {
		return nil // 000012: an identifier
	}
	var issues []string
	if exp != "" {
		issues = append(issues, part+": an exponent (plain decimals: textfmt.Number)")
	}
	v, _ := strconv.ParseFloat(digits+frac+exp, 64)
	if v == 0 && sign != "" && sign != "+" {
		issues = append(issues, part+": a negative zero")
	}
	if mode == fileOutput {
		return issues
	}
	if len(digits) >= 4 && !strings.Contains(intPart, ",") {
		issues = append(issues, part+": no thousands separators")
	}
	if frac != "" && !(ms && len(frac) == 4) {
		sig := strings.TrimLeft(digits+frac[1:], "0")
		if len(sig) > 4 {
			issues = append(issues, fmt.Sprintf("%s: %d significant digits, the rule shows 4", part, len(sig)))
		}
	}
	return issues
}

func TestNumberScanner(t *testing.T) {
	cases := []struct {
		line string
		mode scanMode
		want []string // the tokens flagged, in order
	}{
		// the four violations
		{"latency p99 16001 ms → runs/demo", tableOutput, []string{"16001"}},
		{"  total events: 685255635", tableOutput, []string{"685255635"}},
		{"latency (ms) = 570.172 + -0.000622618·thr", tableOutput, []string{`"+ -0"`, "570.172", "-0.000622618"}},
		{"slope 8.122e-05, sd 4.72e+06", tableOutput, []string{"8.122e-05", "4.72e+06"}},
		{"std 5.96e-08 records", tableOutput, []string{"5.96e-08"}},
		{"change -0 and -0.0 and −0.000", tableOutput, []string{"-0", "-0.0", "−0.000"}},
		{"capacity 138513 records/s, 16001ms, 150000/s, 1234.5", tableOutput, []string{"138513", "16001ms", "150000", "1234.5", "1234.5"}},
		{"mean 100.50 (5 significant digits)", tableOutput, []string{"100.50"}},
		{"OLS NaN %, max +Inf", tableOutput, []string{"NaN", "+Inf"}},
		{"55,252–91196/s", tableOutput, []string{"91196"}},
		// the rule's own output passes
		{"demo: 7,200 s simulated in 0.01600 s wall; 2 faults, recovery mean 76.99 s; latency p99 16,001 ms → runs/demo", tableOutput, nil},
		{"  latency  (ms) = 570.2 − 0.0006226·thr + 0.001046·CI_ms   R² 0.7140 (n 96)", tableOutput, nil},
		{"recovery = −207.7 + 0.004962·thr, -6,780, +12.00, 0.000012, 367,308,140, 160.0, 1.5k, 30 %, inf, –", tableOutput, nil},
		{"ysb-day  YSB ad events (55,252–91,196/s, mean 69,064/s) 2 × 4 slots 18/286", tableOutput, nil},
		// exemptions
		{"→ runs/sweep/r000000/timeseries.parquet runs/2021/x.parquet p99 CI_ms ci95_low", tableOutput, nil},
		{"--start 2021-08-02T00:00:00Z at 12:30:05, every 1h28m of 24h0m1s", tableOutput, nil},
		{"Flink 2.2.1 + Kafka 4.2.0 at 127.0.0.1:9092, commit 8b391c2 (go1.26)", tableOutput, nil},
		{"seed 1234567, seed: 98765, --seed=424242, port 8081, pid 31337, run 000123", tableOutput, nil},
		{"  peak: 150000/s", fileOutput, nil},
		{"    cpu_overhead: 0.151321", fileOutput, nil},
		{"40,1,2,3000,11.1691,3.005,3.17399", fileOutput, nil},
		{"40,1,2,1e+06,11.1691,-0,3.17399", fileOutput, []string{"1e+06", "-0"}},
		{"--points 3445,8713", tableOutput, []string{"3445", "8713"}},
	}
	// results cat keeps the millisecond of times in s, only there
	catCases := []struct {
		header, line string
		want         []string
	}{
		{"   time_s  kind      value", "2,101.384  fault   570.172", []string{"570.172"}},
		{"", "2,101.384  fault   570.172", []string{"2,101.384", "570.172"}},
		{"fault            detected_s  recovery_s", "    2  2,102.384 (+13.320)  45.685", nil},
		{"  time_s", "7200.000", []string{"7200.000"}},
		{"key                 value", "recovery_times_s[0]   192.193", nil},
		{"key                 value", "latency_mean_ms       1,224.567", []string{"1,224.567"}},
		{"   time_s  kind   reason", "2,101.384  fault  faults[0], 3s before checkpoint due at 2,104.384 s", nil},
		{"   time_s  kind   reason", "2,101.384  fault  due at 2,104.384 ms, 2104.384 s", []string{"2,104.384", "2104.384"}},
	}
	for _, c := range catCases {
		cases = append(cases, struct {
			line string
			mode scanMode
			want []string
		}{c.line, tableOutput, c.want})
	}
	for i, c := range cases {
		header := ""
		if j := i - (len(cases) - len(catCases)); j >= 0 {
			header = catCases[j].header
		}
		got := numberIssues(c.line, c.mode, header)
		var tokens []string
		for _, g := range got {
			tok, _, _ := strings.Cut(g, ": ")
			tokens = append(tokens, tok)
		}
		if strings.Join(tokens, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: flagged %q, want %q", c.line, got, c.want)
		}
	}
}

// TestPrintedNumbers runs every command of the walk in a child process
// (runCLI) and scans what it prints (see numberIssues).
func TestPrintedNumbers(t *testing.T) {
	start := time.Now()
	d := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{d}, parts...)...) }
	type step struct {
		args     []string
		stdout   scanMode
		fileFrom string // stdout from the first line equal to this on is fileOutput
		code     int    // the exit code expected
	}
	table := func(args ...string) step { return step{args: args} }
	file := func(args ...string) step { return step{args: args, stdout: fileOutput} }
	checks := checkList(t, p("references"))
	khaosRun := []string{"run", "../scenarios/khaos-ysb.yaml", "--out", p("khaos")}
	if testing.Short() { // 2 of its 8 variants: ≈ 4 s less on a loaded machine
		khaosRun = append(khaosRun, "--variant", "khaos", "--variant", "ci30")
	}
	steps := []step{
		// the demo
		table("run", "../scenarios/demo.yaml", "--out", p("demo"), "--plot"),
		table("results", "cat", p("demo", "timeseries.parquet")),
		table("results", "cat", p("demo", "timeseries.parquet"), "--tail", "20"),
		table("results", "cat", p("demo", "events.parquet"), "--all"),
		table("results", "cat", p("demo", "events.parquet"), "--summary"),
		table("results", "cat", p("demo", "summary.json")),
		table("results", "cat", p("demo", ".streamtwin.json")),
		file("results", "rescales", p("demo")),
		file("scenario", "print", "../scenarios/demo.yaml"),
		table("scenario", "validate", "../scenarios/demo.yaml"),
		table("plot", p("demo")),
		table("compare", "../results/reference/demo.json", p("demo")),
		// rescales that happen
		table("run", "../scenarios/live-rescale.yaml", "--out", p("rescale")),
		file("results", "rescales", p("rescale")),
		// a sweep
		table("sweep", "../scenarios/sweeps/recovery-vs-ci.yaml", "--out", p("sweep")),
		table("results", "summarize", p("sweep"), "--by", "job.checkpoint.interval", "--by", "workload.rate"),
		table("results", "summarize", p("sweep"), "--by", "job.checkpoint.interval", "--by", "workload.rate", "--all"),
		table("results", "cat", p("sweep", "runs.parquet")),
		table("results", "cat", p("sweep", "stats-by-job.checkpoint.interval+workload.rate.parquet")),
		table("plot", "lines", p("sweep"), "--x", "job.checkpoint.interval", "--y", "recovery_mean_s", "--lines", "workload.rate"),
		// the Khaos evaluation (run profiles first and prints the models)
		table(khaosRun...),
		table("evaluate", p("khaos"), "--measured", "../scenarios/measured/khaos-ysb-failures.csv"),
		table("results", "cat", p("khaos", "variants.csv")),
		table("results", "cat", p("khaos", "failures.csv")),
		table("results", "cat", p("khaos", "profile", "models.json")),
		table("results", "cat", p("khaos", "profile", "failure_points.csv")),
		table("results", "cat", p("khaos", "profile", "profiling.parquet")),
		table("profile", "../scenarios/khaos-ysb.yaml", "--out", p("profile"), "--copies", "3", "--failures", "4", "--points", "3445,8713,13832,33370"),
		// workloads
		table("workload", "list"),
		table("workload", "show", "ysb-day"),
		table("workload", "show", "iot-week"),
		table("workload", "show", "iot-day", "--peak", "2k", "--duration", "1h"),
		table("workload", "show", "../scenarios/demo.yaml"),
		table("workload", "export", "iot-day", "--duration", "2h", "--format", "parquet", "--out", p("trace.parquet")),
		table("workload", "show", p("trace.parquet")),
		file("workload", "export", "iot-day", "--duration", "10m"),
		table("workload", "plot", "ysb-day", "--out", p("ysb-day")),
		// calibration
		table("calibrate", "--scenario", "../scenarios/live-traffic.yaml", "--measured", "../scenarios/measured/live-traffic-profile.csv",
			"--fit", "restart_delay", "--max-evaluations", "3", "--cv", "k=2", "--replications", "2", "--out", p("cal", "cal.yaml")),
		table("calibrate", "convert", "--khaos", "../internal/calibrate/testdata/khaos-ysb-failures.txt", "--out", p("measured.csv")),
		{args: []string{"calibrate", "hostmetrics", "--measured", "../scenarios/measured/live-host-metrics.csv"}, fileFrom: "monitoring:"},
		// regression checks: unchanged, then a policy that does worse (exit 1)
		table("check", "--list", "../examples/ci/check.yaml"),
		table("check", "--list", checks, "--update", "--policy", "{name: static, interval: 10s}"),
		{args: []string{"check", "--list", checks, "--policy", "{name: static, interval: 2m}"}, code: 1},
	}
	for _, s := range steps {
		command := strings.ReplaceAll(strings.Join(s.args, " "), d+string(filepath.Separator), "")
		t0 := time.Now()
		stdout, stderr, code, _ := runCLI(t, s.args...)
		if testing.Verbose() {
			t.Logf("%.2f s  streamtwin %s", time.Since(t0).Seconds(), command)
		}
		if code != s.code {
			t.Errorf("streamtwin %s: exit %d, want %d\n%s", command, code, s.code, stderr)
			continue
		}
		for _, out := range []struct {
			name, text string
			mode       scanMode
		}{{"stdout", stdout, s.stdout}, {"stderr", stderr, tableOutput}} {
			mode := out.mode
			for i, line := range strings.Split(out.text, "\n") {
				if out.name == "stdout" && s.fileFrom != "" && strings.TrimSpace(line) == s.fileFrom {
					mode = fileOutput
				}
				header := ""
				if s.args[0] == "results" && s.args[1] == "cat" && out.name == "stdout" {
					header, _, _ = strings.Cut(stdout, "\n")
				}
				for _, issue := range numberIssues(line, mode, header) {
					t.Errorf("streamtwin %s: %s line %d: %s\n\t%s", command, out.name, i+1, issue, line)
				}
			}
		}
	}
	t.Logf("%d commands in %.1f s", len(steps), time.Since(start).Seconds())
}
