package jsonproc

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/decode"
)

func TestSettingsWithDefaults(t *testing.T) {
	s, err := Settings{Command: []string{"python3", "p.py"}}.WithDefaults("policy.external", "[python3, p.py]", time.Second, 10*time.Second)
	if err != nil || s.Timeout != 1 || s.StartTimeout != 10 {
		t.Errorf("defaults: %+v, %v", s, err)
	}
	given, _ := Settings{Command: []string{"x"}, Timeout: 3, StartTimeout: 4}.WithDefaults("f", "", time.Second, time.Second)
	if given.Timeout != 3 || given.StartTimeout != 4 {
		t.Errorf("given timeouts replaced: %+v", given)
	}
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{}, "policy.external.command: missing; the process to run, e.g. [python3, p.py]"},
		{Settings{Command: []string{""}}, "policy.external.command: missing"},
		{Settings{Command: []string{"x"}, Timeout: -1}, "policy.external.timeout must not be negative"},
		{Settings{Command: []string{"x"}, StartTimeout: -2}, "policy.external.start_timeout must not be negative"},
	} {
		if _, err := tc.s.WithDefaults("policy.external", "[python3, p.py]", time.Second, time.Second); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
}

// Env in a scenario: scalars as written, anything else refused at its line
// with the field named.
func TestEnvYAML(t *testing.T) {
	parse := func(src string) (Settings, error) {
		f, err := parser.ParseBytes([]byte(src), 0)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			External Settings `yaml:"external"`
		}
		err = decode.Strict(f.Docs[0].Body, &v)
		return v.External, err
	}
	s, err := parse("external:\n  command: [x]\n  env: {PYTHONPATH: ../python, VERSION: 1.10, N: 0x10, DEBUG: true, EMPTY: '', Q: \"a b\", T: !!str 2.50}\n")
	want := Env{"PYTHONPATH": "../python", "VERSION": "1.10", "N": "0x10", "DEBUG": "true", "EMPTY": "", "Q": "a b", "T": "2.50"}
	if err != nil || !maps.Equal(s.Env, want) {
		t.Errorf("env %#v, %v; want %#v", s.Env, err, want)
	}
	if s, err := parse("external:\n  command: [x]\n  env:\n    ONE: 1\n"); err != nil || !maps.Equal(s.Env, Env{"ONE": "1"}) {
		t.Errorf("a block mapping of one: %#v, %v", s.Env, err)
	}
	if s, err := parse("external: {command: [x], env: ~}\n"); err != nil || s.Env != nil {
		t.Errorf("env: ~: %#v, %v", s.Env, err)
	}
	for _, tc := range []struct{ src, want string }{
		{"external: {command: [x], env: {A=B: c}}", `line 1: external.env: name "A=B" contains '='`},
		{"external: {command: [x], env: {'': c}}", "line 1: external.env: a variable's name cannot be empty"},
		{"external:\n  command: [x]\n  env:\n    A: [1, 2]\n", "line 4: external.env.A: a value is a string, not a list or a mapping"},
		{"external:\n  command: [x]\n  env:\n    A:\n", `line 4: external.env.A: value is missing (write "" for an empty one)`},
		{"external: {command: [x], env: [A=b]}", "line 1: external.env: a mapping of names to values"},
	} {
		_, err := parse(tc.src)
		var pe *decode.PosError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &pe) {
			t.Errorf("%q: %v; want %q", tc.src, err, tc.want)
		}
	}
}

// Env given in Go is checked by WithDefaults, naming the field.
func TestEnvChecked(t *testing.T) {
	for _, tc := range []struct {
		env  Env
		want string
	}{
		{Env{"A=B": "c"}, `policy.external.env: name "A=B" contains '='`},
		{Env{"": "c"}, "policy.external.env: a variable's name cannot be empty"},
		{Env{"A": "x\x00y"}, "policy.external.env.A: a value cannot contain a NUL byte"},
	} {
		_, err := Settings{Command: []string{"x"}, Env: tc.env}.WithDefaults("policy.external", "", time.Second, time.Second)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.env, err, tc.want)
		}
	}
	env := Env{"B": "2", "A": "1"}
	s, err := Settings{Command: []string{"x"}, Env: env}.WithDefaults("f", "", time.Second, time.Second)
	env["A"] = "changed"
	if err != nil || s.Env["A"] != "1" || !slices.Equal(s.Env.List(), []string{"A=1", "B=2"}) {
		t.Errorf("WithDefaults: %v, %v; want its own copy, listed A=1 B=2", s.Env, err)
	}
}

// The process gets streamtwin's environment with Env added (a name in Env
// replaces the inherited value), and a command[0] with a slash is relative
// to Dir.
func TestStartEnvAndDir(t *testing.T) {
	t.Setenv("STREAMTWIN_TEST_KEPT", "inherited")
	t.Setenv("STREAMTWIN_TEST_REPLACED", "inherited")
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$STREAMTWIN_TEST_KEPT $STREAMTWIN_TEST_REPLACED $STREAMTWIN_TEST_NEW $PWD\"\n"
	if err := os.WriteFile(filepath.Join(dir, "env.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Settings{Command: []string{"./env.sh"}, Dir: dir, Env: Env{"STREAMTWIN_TEST_REPLACED": "given", "STREAMTWIN_TEST_NEW": "new value"}}.WithDefaults("f", "", time.Second, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	line, err := p.Receive(10*time.Second, "at start")
	real, _ := filepath.EvalSymlinks(dir)
	if got, want := strings.TrimSpace(string(line)), "inherited given new value "; err != nil || got != want+dir && got != want+real {
		t.Errorf("the process printed %q, %v; want %q", got, err, want+dir)
	}
}
