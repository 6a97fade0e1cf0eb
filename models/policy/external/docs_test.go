package external_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

type fenced struct{ lang, body string }

// fencedBlocks are the ``` blocks of the markdown section that starts at
// heading and ends at the next "## ", in order.
func fencedBlocks(t *testing.T, file, heading string) []fenced {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s: no section %q", file, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []fenced
	var cur *fenced
	for _, line := range strings.Split(section, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fenced{lang: strings.TrimPrefix(line, "```")}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		}
	}
	return blocks
}

// TestPoliciesDocPython follows docs/policies.md's "In Python" as a
// newcomer would: the install step, then the policy and the scenario
// beside it, as written, run in a folder of their own; then the same
// without installing, with the env the section shows. The install itself
// (pip) is stood in for by an interpreter that finds python/ the way the
// editable install does; the test checks the step is there, before the
// snippet, and installs into the interpreter the scenario runs.
func TestPoliciesDocPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for the Python policy:", err)
	}
	const doc = "../../../docs/policies.md"
	pkg, err := filepath.Abs("../../../python")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(t, doc, "## In Python, or anything else")
	snippet := slices.IndexFunc(blocks, func(b fenced) bool { return b.lang == "python" })
	if snippet < 0 {
		t.Fatalf("%s: no Python snippet", doc)
	}
	install := regexp.MustCompile(`(?m)^(\S+)/bin/pip install -e python/`)
	venv := ""
	for _, b := range blocks[:snippet] {
		if m := install.FindStringSubmatch(b.body); b.lang == "sh" && m != nil && strings.Contains(b.body, "python3 -m venv "+m[1]) {
			venv = m[1]
		}
	}
	if venv == "" {
		t.Fatalf("%s: no install step before the Python snippet (python3 -m venv DIR, DIR/bin/pip install -e python/): "+
			"run as written, it fails with ModuleNotFoundError: No module named 'streamtwin_policy'", doc)
	}
	var yamls []string
	for _, b := range blocks[snippet+1:] {
		if b.lang == "yaml" {
			yamls = append(yamls, b.body)
		}
	}
	if len(yamls) < 2 {
		t.Fatalf("%s: want the scenario and its variant without installing after the Python snippet; found %d yaml blocks", doc, len(yamls))
	}
	command := regexp.MustCompile(`command: \[([^\]]*)\]`)
	argv := func(yaml string) []string {
		m := command.FindStringSubmatch(yaml)
		if m == nil {
			t.Fatalf("%s: no command in\n%s", doc, yaml)
		}
		return strings.Split(m[1], ", ")
	}

	// Installed: the scenario runs the virtualenv's Python.
	dir := t.TempDir()
	if a := argv(yamls[0]); len(a) != 2 || a[0] != venv+"/bin/python" {
		t.Fatalf("%s: the scenario's command is %q; want the Python the install step installs into (%s/bin/python) and the policy", doc, a, venv)
	}
	policyFile := argv(yamls[0])[1]
	python := filepath.Join(dir, venv, "bin", "python")
	if err := os.MkdirAll(filepath.Dir(python), 0o755); err != nil {
		t.Fatal(err)
	}
	stand := fmt.Sprintf("#!/bin/sh\n# pip install -e python/\nPYTHONPATH=%q exec python3 \"$@\"\n", pkg)
	write(t, python, stand, 0o755)
	write(t, filepath.Join(dir, policyFile), blocks[snippet].body, 0o644)
	installed := runDoc(t, filepath.Join(dir, "my_policy.yaml"), yamls[0])

	// Not installed: python3 and the env of the second block; the same run.
	bare := t.TempDir()
	if err := os.Symlink(pkg, filepath.Join(bare, "python")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(bare, policyFile), blocks[snippet].body, 0o644)
	head, _, ok := strings.Cut(yamls[0], "\npolicy:\n")
	if !ok || !strings.HasPrefix(yamls[1], "policy:\n") {
		t.Fatalf("%s: want the scenario's policy section, then a policy section of its own", doc)
	}
	if got := runDoc(t, filepath.Join(bare, "my_policy.yaml"), head+"\n"+yamls[1]); !slices.Equal(got, installed) {
		t.Errorf("the run with env differs:\n%q\nwant, as installed:\n%q", got, installed)
	}
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// runDoc writes the scenario to path, runs it and returns its decisions,
// which must not be none.
func runDoc(t *testing.T, path, yaml string) []string {
	t.Helper()
	write(t, path, yaml, 0o644)
	sc, err := scenario.ParseRun(path, []byte(yaml), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(filepath.Dir(path), "runs", sc.Name)
	if _, err := run.ToDir(context.Background(), twin.Backend{}, sc, out, run.Output{}); err != nil {
		t.Fatalf("%s as written: %v", path, err)
	}
	events, err := results.ReadEvents(filepath.Join(out, "events.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var decisions []string
	for _, e := range events {
		if e.Kind == results.KindPolicyDecision {
			decisions = append(decisions, fmt.Sprintf("%gs %s", e.TimeS, e.Reason))
		}
	}
	if len(decisions) == 0 {
		t.Errorf("%s: the policy took no decision", path)
	}
	return decisions
}
