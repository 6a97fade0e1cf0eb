package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestHelpShowsEachDefaultOnce walks every command and subcommand: no
// flag's help line states its default twice (the usage's own and
// urfave/cli's "(default: 0)"), and no switch says "(default: false)".
func TestHelpShowsEachDefaultOnce(t *testing.T) {
	app := newApp()
	var walk func(path string, cmds []*cli.Command)
	checked := 0
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := strings.TrimSpace(path + " " + c.Name)
			for _, f := range c.Flags {
				checkFlagHelp(t, name, f)
				checked++
			}
			walk(name, c.Subcommands)
		}
	}
	walk("", app.Commands)
	if checked < 50 {
		t.Errorf("checked only %d flags; does the walk reach the subcommands?", checked)
	}
}

func checkFlagHelp(t *testing.T, cmd string, f cli.Flag) {
	t.Helper()
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return
	}
	line := cli.FlagStringer(f)
	usage := strings.ToLower(df.GetUsage())
	switch {
	case strings.Count(line, "(default:") > 1:
		t.Errorf("%s: default given twice: %s", cmd, line)
	case strings.Contains(usage, "default") && strings.Count(strings.ToLower(line), "default") > strings.Count(usage, "default"):
		t.Errorf("%s: the usage states the default, and help adds another: %s", cmd, line)
	case strings.Contains(line, "(default: false)"):
		t.Errorf("%s: a switch shows (default: false): %s", cmd, line)
	}
}

// TestRunHelp: the rendered help of run shows the seed's default once.
func TestRunHelp(t *testing.T) {
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	if err := app.Run([]string{"streamtwin", "run", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	if !strings.Contains(help, "(default: the scenario's seed)") {
		t.Errorf("run --help lacks the seed's default:\n%s", help)
	}
	for _, bad := range []string{"(default: 0)", "(default: false)"} {
		if strings.Contains(help, bad) {
			t.Errorf("run --help shows %s:\n%s", bad, help)
		}
	}
}
