package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkloadCommands(t *testing.T) {
	out, stderr, code, _ := runCLI(t, "workload", "show", "ysb-day")
	if code != 0 || !strings.Contains(out, "min 55,252  mean 69,064  max 91,196") || !strings.Contains(out, "total events: 5,967,177,316") {
		t.Errorf("show ysb-day (exit %d): %s%s", code, out, stderr)
	}
	out, _, code, _ = runCLI(t, "workload", "list")
	for _, want := range []string{"iot-day", "ysb-day", "traffic-monitoring", "burst"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("list lacks %s", want)
		}
	}
	// export → trace file → scenario using it: the same rates
	dir := t.TempDir()
	trace := filepath.Join(dir, "day.parquet")
	if _, stderr, code, _ := runCLI(t, "workload", "export", "iot-day", "--duration", "2h", "--format", "parquet", "--out", trace); code != 0 {
		t.Fatal(stderr)
	}
	csv, _, _, _ := runCLI(t, "workload", "export", trace)
	orig, _, _, _ := runCLI(t, "workload", "export", "iot-day", "--duration", "2h")
	if csv != orig || strings.Count(csv, "\n") != 7201 {
		t.Errorf("parquet export does not read back as the same rates (%d lines)", strings.Count(csv, "\n"))
	}
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("duration: 2h\nworkload: {shape: trace, file: day.parquet}\n"), 0o644)
	if viaScenario, stderr, _, _ := runCLI(t, "workload", "export", sc); viaScenario != orig {
		t.Errorf("scenario with the exported trace gives other rates: %s", stderr)
	}
	// a bad trace in a scenario is an input error naming both files
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("second|value\n0|5\n1|-3\n"), 0o644)
	os.WriteFile(sc, []byte("duration: 2h\nworkload:\n  shape: trace\n  file: bad.csv\n"), 0o644)
	_, stderr, code, _ = runCLI(t, "run", sc, "--out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(stderr, "s.yaml:4: workload.file:") || !strings.Contains(stderr, "bad.csv:3: negative rate -3") {
		t.Errorf("bad trace: exit %d, %s", code, stderr)
	}
}

func TestWorkloadEvents(t *testing.T) {
	cases := []struct {
		args  []string
		lines int
		keys  []string
	}{
		{[]string{"ysb", "--rate", "1000/s", "--duration", "3s"}, 3000, []string{"user_id", "page_id", "ad_id", "ad_type", "event_type", "event_time", "ip_address"}},
		{[]string{"ysb", "--rate", "500/s", "--duration", "2s", "--format", "compact"}, 1000, []string{"ts", "id", "et"}},
		{[]string{"iot", "--rate", "200/s", "--duration", "5s"}, 1000, []string{"lp", "pt", "ts"}},
		{[]string{"ysb", "--mapping"}, 1000, []string{"ad_id", "campaign_id"}},
	}
	for _, c := range cases {
		args := append([]string{"workload", "events"}, c.args...)
		out, stderr, code, _ := runCLI(t, args...)
		again, _, _, _ := runCLI(t, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != c.lines {
			t.Errorf("%v: exit %d, %d lines, want %d: %s", c.args, code, len(lines), c.lines, stderr)
			continue
		}
		if out != again {
			t.Errorf("%v: output differs between two runs", c.args)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil || len(m) != len(c.keys) {
			t.Errorf("%v: last line %q: %v", c.args, lines[len(lines)-1], err)
		}
		for _, k := range c.keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%v: key %s missing", c.args, k)
			}
		}
	}
	if _, _, code, _ := runCLI(t, "workload", "events", "ysb"); code != 2 {
		t.Error("events without a rate or schedule should be an input error")
	}
}
