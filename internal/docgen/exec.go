package docgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// MainEnv, set to 1 in a re-executed binary's environment, makes a program
// that embeds app.Main (cmd/docgen, the docs test) run as streamtwin, so
// the docs are made by the code under test rather than by an older binary
// on the PATH.
const MainEnv = "STREAMTWIN_MAIN"

// Reexec is a Context's Command that runs exe as streamtwin (see MainEnv).
func Reexec(exe string) func(args ...string) *exec.Cmd {
	return func(args ...string) *exec.Cmd {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), MainEnv+"=1")
		return cmd
	}
}

// python is the interpreter of the repository's environment (make
// .venv/bin/python), or $STREAMTWIN_PYTHON.
func (c *Context) python() (string, error) {
	if p := os.Getenv("STREAMTWIN_PYTHON"); p != "" {
		return p, nil
	}
	p := c.Path(".venv/bin/python")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the docs' Python examples need the repository's Python environment: make .venv/bin/python (or set STREAMTWIN_PYTHON): %w", err)
	}
	return p, nil
}

// Python runs a Python script of the repository with args, its streamtwin
// calls going to the Context's streamtwin, and returns its standard output.
func (c *Context) Python(script string, args ...string) (string, error) {
	py, err := c.python()
	if err != nil {
		return "", err
	}
	st := c.Command()
	cmd := exec.Command(py, append([]string{c.Path(script)}, args...)...)
	cmd.Dir = c.Root
	cmd.Env = append(append([]string{}, st.Environ()...), "STREAMTWIN_BIN="+st.Path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", script, strings.Join(args, " "), err, tail(stderr.String()+stdout.String(), 2000))
	}
	return stdout.String(), nil
}
